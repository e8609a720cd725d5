//! Interface names as EOS's JSON prints them (`Ethernet1`, `Port-Channel10`), from the short
//! forms its text tables print (`Et1`, `Po10`, `Ma1/1`): the checks compare names with the
//! baseline's, which uses the long form.

/// The short prefixes EOS's text tables print, and their long forms.
const SHORT: &[(&str, &str)] = &[
    ("Et", "Ethernet"),
    ("Po", "Port-Channel"),
    ("Ma", "Management"),
    ("Vl", "Vlan"),
    ("Lo", "Loopback"),
    ("Tu", "Tunnel"),
    ("Vx", "Vxlan"),
];

/// `Et3/1` -> `Ethernet3/1`; a long name, or one EOS does not abbreviate, as it is. The quotes
/// some releases put around an LLDP `interfaceId` (`"Ethernet1"`, napalm issue 1153) go too.
pub fn long_name(name: &str) -> String {
    let name = name.trim().trim_matches('"');
    for (short, long) in SHORT {
        if let Some(rest) = name.strip_prefix(short)
            && rest.starts_with(|c: char| c.is_ascii_digit())
        {
            return format!("{long}{rest}");
        }
    }
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_forms_grow_long() {
        for (short, long) in [
            ("Et1", "Ethernet1"),
            ("Et3/1", "Ethernet3/1"),
            ("Ethernet3/1", "Ethernet3/1"),
            ("Po10", "Port-Channel10"),
            ("Ma1/1", "Management1/1"),
            ("\"Ethernet1\"", "Ethernet1"),
            ("Vlan100", "Vlan100"),
            ("Etc", "Etc"),
            ("0800.274f.332d", "0800.274f.332d"),
        ] {
            assert_eq!(long_name(short), long, "{short}");
        }
    }
}

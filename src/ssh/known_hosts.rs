//! The site's known_hosts file, read by OpenSSH's rules (sshd(8) "SSH_KNOWN_HOSTS FILE FORMAT",
//! OpenSSH's hostfile.c and match.c), for [`super::hostkey`] to decide on. russh's own reader
//! ignores `@revoked` and `@cert-authority`, `!negated` and wildcard patterns, and splits on
//! single spaces, so a revoked key was accepted; this one reads what OpenSSH reads.
//!
//! A line is `[@revoked|@cert-authority] patterns keytype base64 [comment]`, fields separated
//! by spaces or tabs; `#` comments and blank lines are skipped. Patterns are comma-separated
//! globs (`*`, `?`) compared without case; a matching `!pattern` excludes the line whatever else
//! matches; `|1|salt|hmac` is one hashed name (HMAC-SHA1 of the name, keyed by the salt). The
//! name looked up is `host` on port 22 and `[host]:port` elsewhere, as `ssh` does; off port 22
//! the bare `host` lines are read too, for the fallback `ssh` makes to them.
//!
//! Where OpenSSH silently skips a line it cannot parse, this reader fails closed when the line
//! may concern the host: a broken line whose patterns match it, or a broken `@`-marked line
//! whose host field cannot be read, is an error naming the line. Skipping those could hide a
//! revocation. Broken unmarked lines that cannot name this host only ever add trust elsewhere,
//! so they are skipped as OpenSSH skips them. One more place is stricter than OpenSSH on
//! purpose: a marker is ended by a space or a tab, where OpenSSH's `check_markers` ends it at
//! the first space of the line, so `@revoked<TAB>host key` with a space later is an invalid
//! marker to `ssh`, which then skips the revocation. Only reading: premarket never writes
//! known_hosts.

use std::net::IpAddr;
use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use russh::keys::PublicKey;
use russh::keys::ssh_encoding::base64::{Base64, Encoding};
use sha1::Sha1;

use premarket_files::{self as file, Kind};

mod index;
mod line_error;
pub use index::Index;
pub use line_error::LineError;

/// What a line says about its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// No marker: the key is the host's.
    Plain,
    /// `@revoked`: the key must never be accepted.
    Revoked,
    /// `@cert-authority`: the key signs host certificates.
    CertAuthority,
}

/// One line of the file that names the host looked up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    pub marker: Marker,
    pub key: PublicKey,
}

/// Why the file could not be used. Either way the host key check fails closed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Unreadable(String),
    #[error("line {line}: {reason} (`{excerpt}`); fix or remove that line")]
    Malformed {
        line: usize,
        reason: LineError,
        excerpt: String,
    },
}

/// The name OpenSSH looks up for `host` on `port`: `host` on port 22, `[host]:port` elsewhere.
/// Names are lowercased and addresses written in their canonical form, as `ssh` does before
/// it looks a host up (and before it hashes it).
pub fn lookup_name(host: &str, port: u16) -> String {
    let host = match host.parse::<IpAddr>() {
        Ok(addr) => addr.to_string(),
        Err(_) => host.to_ascii_lowercase(),
    };
    if port == 22 {
        host
    } else {
        format!("[{host}]:{port}")
    }
}

/// The lines of a known_hosts file that name one host on one port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// Under the name `ssh` looks up ([`lookup_name`]).
    pub own: Vec<Entry>,
    /// Off port 22, under the bare host name: `ssh` accepts a key listed there when the port's
    /// own name lists no key at all (sshconnect.c: "checking without port identifier").
    pub bare: Vec<Entry>,
}

/// The bytes of the known_hosts file at `path`, `None` when it does not exist (OpenSSH reads
/// a missing file as an empty one). Refused unless it is a regular file within
/// [`Kind::KNOWN_HOSTS`]'s cap. Blocking: the caller reads it before the handshake, never
/// inside it.
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, Error> {
    match file::read(path, Kind::KNOWN_HOSTS) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e) => Err(Error::Unreadable(e.to_string())),
    }
}

/// What known_hosts `text` lists for `host` on `port`.
pub fn listed(text: &[u8], host: &str, port: u16) -> Result<Listed, Error> {
    listed_by(|name| entries(text, name), host, port)
}

/// [`listed`], looking names up with `entries`.
fn listed_by(
    entries: impl Fn(&str) -> Result<Vec<Entry>, Error>,
    host: &str,
    port: u16,
) -> Result<Listed, Error> {
    let own = entries(&lookup_name(host, port))?;
    let bare = match port {
        22 => Vec::new(),
        _ => entries(&lookup_name(host, 22))?,
    };
    Ok(Listed { own, bare })
}

/// The entries of known_hosts `text` that name `name`, in file order.
pub fn entries(text: &[u8], name: &str) -> Result<Vec<Entry>, Error> {
    let mut found = Vec::new();
    for (index, raw) in text.split(|&b| b == b'\n').enumerate() {
        found.extend(entry_at(index + 1, raw, name)?);
    }
    Ok(found)
}

/// What line number `line` (`raw`, without its line feed) says about `name`: `None` when it
/// does not name it; an error when it may name it and cannot be read.
fn entry_at(line: usize, raw: &[u8], name: &str) -> Result<Option<Entry>, Error> {
    let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
    let malformed = |reason: LineError| Error::Malformed {
        line,
        reason,
        excerpt: excerpt(raw),
    };
    let Some(fields) = split_line(raw) else {
        return Ok(None);
    };
    let names_it = fields
        .hosts
        .and_then(|hosts| host_field_matches(hosts, name));
    match (names_it, &fields.marker) {
        (Some(false), _) => return Ok(None),
        // A field we cannot read may be this host's: only a marker makes that matter.
        (None, Ok(Marker::Plain)) => return Ok(None),
        (None, _) => return Err(malformed(LineError::HostField)),
        (Some(true), _) => {}
    }
    let marker = fields.marker.clone().map_err(&malformed)?;
    let key = parse_key(fields.key).map_err(&malformed)?;
    Ok(Some(Entry { line, marker, key }))
}

/// A non-comment line cut into its fields; `None` for blank and `#` lines.
struct Fields<'a> {
    marker: Result<Marker, LineError>,
    hosts: Option<&'a [u8]>,
    /// Everything after the host field: key type, key, comment.
    key: &'a [u8],
}

fn is_blank(b: &u8) -> bool {
    *b == b' ' || *b == b'\t'
}

/// The next space/tab-delimited field of `text` and what follows it (leading blanks skipped).
fn next_field(text: &[u8]) -> (&[u8], &[u8]) {
    let start = text.iter().position(|b| !is_blank(b)).unwrap_or(text.len());
    let text = text.get(start..).unwrap_or_default();
    let end = text.iter().position(is_blank).unwrap_or(text.len());
    text.split_at(end)
}

fn split_line(raw: &[u8]) -> Option<Fields<'_>> {
    let (mut field, mut rest) = next_field(raw);
    if field.is_empty() || field.starts_with(b"#") {
        return None;
    }
    let mut marker = Ok(Marker::Plain);
    let mut markers = 0;
    while field.starts_with(b"@") {
        markers += 1;
        marker = match (markers, field) {
            (2.., _) => Err(LineError::SecondMarker),
            (_, b"@revoked") => Ok(Marker::Revoked),
            (_, b"@cert-authority") => Ok(Marker::CertAuthority),
            (_, other) => Err(LineError::UnknownMarker(other.escape_ascii().to_string())),
        };
        (field, rest) = next_field(rest);
    }
    Some(Fields {
        marker,
        hosts: (!field.is_empty()).then_some(field),
        key: rest,
    })
}

/// Whether the host field names `name`; `None` when it is a hash that cannot be read.
fn host_field_matches(hosts: &[u8], name: &str) -> Option<bool> {
    if hosts.starts_with(b"|") {
        return hashed_matches(hosts, name);
    }
    Some(pattern_list_matches(&name.to_ascii_lowercase(), hosts))
}

/// `|1|base64(salt)|base64(HMAC-SHA1(salt, name))`, compared whole as OpenSSH does (so a hash
/// followed by `,other` never matches).
fn hashed_matches(field: &[u8], name: &str) -> Option<bool> {
    let rest = field.strip_prefix(b"|1|")?;
    let end = rest.iter().position(|&b| b == b'|')?;
    let salt_text = std::str::from_utf8(rest.get(..end)?).ok()?;
    if salt_text.is_empty() || salt_text.len() > 1024 {
        return None;
    }
    let salt = Base64::decode_vec(salt_text).ok()?;
    // OpenSSH's salts are one SHA-1 digest long (20 bytes) and it refuses any other length.
    if salt.len() != 20 {
        return None;
    }
    let mac = Hmac::<Sha1>::new_from_slice(&salt)
        .ok()?
        .chain_update(name.as_bytes())
        .finalize()
        .into_bytes();
    let hashed = format!(
        "|1|{}|{}",
        Base64::encode_string(&salt),
        Base64::encode_string(&mac)
    );
    Some(hashed.as_bytes() == field)
}

/// OpenSSH's `match_pattern_list`: any positive match and no negated one. `name` is lowercase.
fn pattern_list_matches(name: &str, list: &[u8]) -> bool {
    // A trailing comma ends the list; it does not add an empty pattern.
    let list = list.strip_suffix(b",").unwrap_or(list);
    let mut positive = false;
    for pattern in list.split(|&b| b == b',') {
        let (negated, pattern) = match pattern.strip_prefix(b"!") {
            Some(p) => (true, p),
            None => (false, pattern),
        };
        // OpenSSH gives up on the whole list (no match) at a pattern of 1023 bytes or more.
        if pattern.len() >= 1023 {
            return false;
        }
        if glob(name.as_bytes(), &pattern.to_ascii_lowercase()) {
            if negated {
                return false;
            }
            positive = true;
        }
    }
    positive
}

/// `*` (any run, empty included) and `?` (any one byte); everything else literal. Iterative,
/// resuming at the last `*` on a mismatch: at most `name.len() * pattern.len()` steps.
fn glob(name: &[u8], pattern: &[u8]) -> bool {
    let (mut n, mut p) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while let Some(&c) = name.get(n) {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&q) if q == b'?' || q == c => {
                n += 1;
                p += 1;
            }
            _ => match star {
                Some((star_p, star_n)) => {
                    star = Some((star_p, star_n + 1));
                    p = star_p + 1;
                    n = star_n + 1;
                }
                None => return false,
            },
        }
    }
    pattern.iter().skip(p).all(|&b| b == b'*')
}

/// `keytype base64 [comment]` into a key whose type agrees with its blob.
fn parse_key(text: &[u8]) -> Result<PublicKey, LineError> {
    let (kind, rest) = next_field(text);
    let (data, _comment) = next_field(rest);
    if kind.is_empty() || kind.starts_with(b"#") {
        return Err(LineError::NoKeyType);
    }
    if data.is_empty() {
        return Err(LineError::NoKey);
    }
    let (Ok(kind), Ok(data)) = (std::str::from_utf8(kind), std::str::from_utf8(data)) else {
        return Err(LineError::NotText);
    };
    PublicKey::from_openssh(&format!("{kind} {data}"))
        .map_err(|e| LineError::Key(kind.to_string(), e.to_string()))
}

/// The line for an error message: control bytes escaped, clipped.
fn excerpt(raw: &[u8]) -> String {
    const MAX: usize = 100;
    let shown: String = raw.escape_ascii().to_string();
    match shown.char_indices().nth(MAX) {
        Some((i, _)) => format!("{}...", shown.get(..i).unwrap_or_default()),
        None => shown,
    }
}

#[cfg(test)]
pub(crate) mod test_keys;

#[cfg(test)]
mod tests {
    use super::*;

    use super::test_keys::*;

    fn key(text: &str) -> PublicKey {
        PublicKey::from_openssh(text).unwrap()
    }

    /// `(line, marker, key)` of each entry, or the error text.
    fn lookup(text: &str, name: &str) -> Result<Vec<(usize, Marker, PublicKey)>, String> {
        entries(text.as_bytes(), name)
            .map(|found| {
                found
                    .into_iter()
                    .map(|e| (e.line, e.marker, e.key))
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn lookup_name_is_what_ssh_looks_up() {
        for (host, port, name) in [
            ("sw1.example", 22, "sw1.example"),
            ("SW1.Example", 22, "sw1.example"),
            ("10.0.0.1", 2222, "[10.0.0.1]:2222"),
            ("2001:DB8:0:0::1", 22, "2001:db8::1"),
            ("2001:db8::1", 830, "[2001:db8::1]:830"),
        ] {
            assert_eq!(lookup_name(host, port), name, "{host}:{port}");
        }
    }

    #[test]
    fn patterns_follow_match_c() {
        let table: &[(&str, &str, bool)] = &[
            ("sw1.example", "sw1.example", true),
            ("sw1.example", "SW1.EXAMPLE", true),
            ("sw1.example", "sw1.example.org", false),
            ("sw1.example", "sw1", false),
            ("sw1.example", "fw1.example,sw1.example", true),
            ("sw1.example", "*.example", true),
            ("sw1.example", "*", true),
            ("sw1.example", "sw?.example", true),
            ("sw12.example", "sw?.example", false),
            ("sw1.example", "s*1*.e*e", true),
            ("sw1.example", "*.example,!sw1.example", false),
            ("sw1.example", "!sw1.example,*.example", false),
            ("sw2.example", "*.example,!sw1.example", true),
            // A negation alone never makes a line match.
            ("sw2.example", "!sw1.example", false),
            ("[10.0.0.1]:2222", "[10.0.0.1]:2222", true),
            ("[10.0.0.1]:2222", "[10.0.0.1]:*", true),
            ("[10.0.0.1]:2222", "10.0.0.1", false),
            ("[10.0.0.1]:2222", "[10.0.0.?]:2222,![10.0.0.1]:*", false),
            ("10.0.0.1", "10.0.0.*", true),
            ("10.0.0.1", "[10.0.0.1]:22", false),
            ("sw1.example", "sw1.example,", true),
            ("sw1.example", ",sw1.example", true),
            ("sw1.example", "", false),
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
                "*a*a*a*a*a*a*a*a*a*a*a*a*c",
                false,
            ),
        ];
        for (name, list, expected) in table {
            assert_eq!(
                pattern_list_matches(name, list.as_bytes()),
                *expected,
                "{name} against {list}"
            );
        }
        let long = format!("sw1.example,{}", "x".repeat(1023));
        assert!(!pattern_list_matches("sw1.example", long.as_bytes()));
    }

    #[test]
    fn hashed_names_match_what_ssh_keygen_hashed() {
        let table: &[(&str, &str, Option<bool>)] = &[
            (HASHED_SW1, "sw1.example", Some(true)),
            (HASHED_SW1, "sw2.example", Some(false)),
            (HASHED_10_0_0_1_2222, "[10.0.0.1]:2222", Some(true)),
            (HASHED_10_0_0_1_2222, "10.0.0.1", Some(false)),
            // Not hashes OpenSSH can read: the salt is not 20 bytes, not base64, or missing.
            (
                "|1|c2FsdA==|oq/P3GY8jHyzjdbidhe8BciT/f0=",
                "sw1.example",
                None,
            ),
            ("|1|@@@|oq/P3GY8jHyzjdbidhe8BciT/f0=", "sw1.example", None),
            ("|1|", "sw1.example", None),
            ("|2|RUvAvaeO6Abxuw2WO3TnSWCBkgQ=|x", "sw1.example", None),
        ];
        for (field, name, expected) in table {
            assert_eq!(
                host_field_matches(field.as_bytes(), name),
                *expected,
                "{field} for {name}"
            );
        }
        let with_other = format!("{HASHED_SW1},sw2.example");
        assert_eq!(
            host_field_matches(with_other.as_bytes(), "sw1.example"),
            Some(false)
        );
    }

    #[test]
    fn entries_follow_the_file_format() {
        let (a, b, e) = (key(A), key(B), key(E));
        use Marker::*;
        type Row<'a> = (&'a str, String, &'a str, Vec<(usize, Marker, PublicKey)>);
        let table: Vec<Row> = vec![
            (
                "comments, blank lines and several keys",
                format!("# site\n\n   \nsw1.example {A}\nsw1.example {E} host ecdsa\nfw1 {B}\n"),
                "sw1.example",
                vec![(4, Plain, a.clone()), (5, Plain, e.clone())],
            ),
            (
                "tabs, runs of blanks, CRLF, comment after the key",
                format!(
                    "\t sw1.example\t\t{}\t  key comment\r\n",
                    A.replace(' ', " \t ")
                ),
                "sw1.example",
                vec![(1, Plain, a.clone())],
            ),
            (
                "markers",
                format!("@revoked * {B}\n@cert-authority *.example {E}\nsw1.example {A}\n"),
                "sw1.example",
                vec![
                    (1, Revoked, b.clone()),
                    (2, CertAuthority, e.clone()),
                    (3, Plain, a.clone()),
                ],
            ),
            (
                "a marker followed by a tab",
                format!("@revoked\tsw1.example {B}\n"),
                "sw1.example",
                vec![(1, Revoked, b.clone())],
            ),
            (
                "negation excludes a marked line too",
                format!("@revoked *,!sw1.example {B}\nsw1.example {B}\n"),
                "sw1.example",
                vec![(2, Plain, b.clone())],
            ),
            (
                "hashed and port forms",
                format!(
                    "{HASHED_SW1} {A}\n{HASHED_10_0_0_1_2222} {B}\n[10.0.0.1]:22 {E}\n10.0.0.1 {E}\n"
                ),
                "[10.0.0.1]:2222",
                vec![(2, Plain, b.clone())],
            ),
            (
                "port 22 written as [host]:22 is never looked up",
                format!("[10.0.0.1]:22 {E}\n10.0.0.1 {A}\n"),
                "10.0.0.1",
                vec![(2, Plain, a.clone())],
            ),
            (
                "broken lines for other hosts are skipped",
                format!(
                    "fw1 ssh-ed25519 AAAA\nfw2\n|1|bad|hash {A}\n@bogus fw3 {A}\nsw1.example {A}\n"
                ),
                "sw1.example",
                vec![(5, Plain, a.clone())],
            ),
            ("an empty file", String::new(), "sw1.example", vec![]),
        ];
        for (what, text, name, expected) in table {
            assert_eq!(lookup(&text, name), Ok(expected), "{what}");
        }
    }

    #[test]
    fn broken_lines_that_may_concern_the_host_fail_closed() {
        let table: &[(&str, String, &str)] = &[
            (
                "a misspelt marker",
                format!("@revokd sw1.example {B}\n"),
                "line 1: unknown marker `@revokd`",
            ),
            (
                "two markers",
                format!("@revoked @cert-authority sw1.example {B}\n"),
                "line 1: a line takes one marker only",
            ),
            (
                "a marker and nothing else",
                "# site\n@revoked\n".to_string(),
                "line 2: its host field cannot be read",
            ),
            (
                "a revocation whose hash is broken",
                format!("@revoked |1|bad|hash {B}\n"),
                "line 1: its host field cannot be read",
            ),
            (
                "no key",
                "sw1.example\n".to_string(),
                "line 1: no key type after the host field",
            ),
            (
                "a comment where the key should be",
                "sw1.example # old\n".to_string(),
                "line 1: no key type after the host field",
            ),
            (
                "no key after the type",
                "*.example ssh-ed25519\n".to_string(),
                "line 1: no key after the key type",
            ),
            (
                "a truncated key",
                "sw1.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA\n".to_string(),
                "line 1: the `ssh-ed25519` key does not parse",
            ),
            (
                "a key type that disagrees with the key",
                format!("sw1.example ssh-rsa {}\n", &A[12..]),
                "line 1: the `ssh-rsa` key does not parse",
            ),
            (
                "an SSH-1 key",
                "sw1.example 1024 35 12345678901234567890\n".to_string(),
                "line 1: the `1024` key does not parse",
            ),
            (
                "control bytes are shown escaped",
                "sw1.example ssh-ed25519 \x1b[2J\n".to_string(),
                "(`sw1.example ssh-ed25519 \\x1b[2J`)",
            ),
        ];
        for (what, text, expected) in table {
            let e = lookup(text, "sw1.example").unwrap_err();
            assert!(e.contains(expected), "{what}: {e}");
        }
    }

    #[test]
    fn read_and_listed_read_both_names_and_fail_closed() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(&dir.path().join("none")), Ok(None));
        assert!(matches!(read(dir.path()), Err(Error::Unreadable(_))));
        let file = dir.path().join("known_hosts");
        std::fs::write(&file, format!("sw1.example {A}\n[sw1.example]:2222 {B}\n")).unwrap();
        let text = read(&file).unwrap().unwrap();
        let lines = |port| {
            listed(&text, "SW1.example", port).map(|l| {
                let lines = |e: Vec<Entry>| e.iter().map(|e| e.line).collect::<Vec<_>>();
                (lines(l.own), lines(l.bare))
            })
        };
        assert_eq!(lines(22), Ok((vec![1], vec![])));
        assert_eq!(lines(2222), Ok((vec![2], vec![1])));
        assert_eq!(lines(830), Ok((vec![], vec![1])));
    }
}

//! The emulated `diagnose sys session filter`: the filter kept per device like the real box
//! may, set one key at a time (`src`, `dport`, `clear`, ...), read back in FortiOS's layout,
//! and matched against the session table for `list` and `clear`.

use std::net::Ipv4Addr;

use super::super::topology;
use super::sessions::Session;

/// An inclusive range of a filter key.
type Range<T> = Option<(T, T)>;

/// `diagnose sys session filter` state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    vd: Option<i64>,
    sintf: Option<String>,
    dintf: Option<String>,
    proto: Range<u32>,
    src: Range<Ipv4Addr>,
    dst: Range<Ipv4Addr>,
    sport: Range<u32>,
    dport: Range<u32>,
    policy: Range<u32>,
    expire: Range<u32>,
    duration: Range<u32>,
}

fn parse_range<T: std::str::FromStr + PartialOrd + Copy>(args: &[&str]) -> Result<(T, T), String> {
    let bad = |w: &str| format!("command parse error before '{w}'");
    let lo: T = args
        .first()
        .ok_or_else(|| bad(""))?
        .parse()
        .map_err(|_| bad(args[0]))?;
    let hi: T = match args.get(1) {
        Some(w) => w.parse().map_err(|_| bad(w))?,
        None => lo,
    };
    if args.len() > 2 {
        return Err(bad(args[2]));
    }
    Ok((lo, hi))
}

fn interface_index(name: &str) -> Option<u32> {
    match name {
        n if n == topology::PORT_IN => Some(topology::PORT_IN_INDEX),
        n if n == topology::PORT_OUT => Some(topology::PORT_OUT_INDEX),
        "mgmt" => Some(3),
        _ => None,
    }
}

impl Filter {
    /// `diagnose sys session filter KEY ARGS...`; setting prints nothing.
    pub fn set(&mut self, key: &str, args: &[&str]) -> Result<(), String> {
        match key {
            "clear" => *self = Filter::default(),
            "vd" => self.vd = Some(parse_range::<i64>(args)?.0).filter(|v| *v >= 0),
            "sintf" | "dintf" => {
                let name = args.first().map(|a| a.trim_matches('"').to_string());
                let Some(name) = name.filter(|n| interface_index(n).is_some()) else {
                    return Err(format!(
                        "command parse error before '{}'",
                        args.first().unwrap_or(&"")
                    ));
                };
                if key == "sintf" {
                    self.sintf = Some(name);
                } else {
                    self.dintf = Some(name);
                }
            }
            "proto" => self.proto = Some(parse_range(args)?),
            "src" => self.src = Some(parse_range(args)?),
            "dst" => self.dst = Some(parse_range(args)?),
            "sport" => self.sport = Some(parse_range(args)?),
            "dport" => self.dport = Some(parse_range(args)?),
            "policy" => self.policy = Some(parse_range(args)?),
            "expire" => self.expire = Some(parse_range(args)?),
            "duration" => self.duration = Some(parse_range(args)?),
            other => return Err(format!("command parse error before '{other}'")),
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        *self == Filter::default()
    }

    /// The bare `diagnose sys session filter`: the current filter, one key per line.
    pub fn readback(&self) -> String {
        fn r<T: std::fmt::Display>(v: &Range<T>) -> String {
            v.as_ref()
                .map(|(lo, hi)| format!("{lo}-{hi}"))
                .unwrap_or_else(|| "any".into())
        }
        let lines = [
            (
                "vd",
                self.vd
                    .map(|v| v.to_string())
                    .unwrap_or_else(|| "any".into()),
            ),
            ("sintf", self.sintf.clone().unwrap_or_else(|| "any".into())),
            ("dintf", self.dintf.clone().unwrap_or_else(|| "any".into())),
            ("proto", r(&self.proto)),
            ("proto-state", "any".into()),
            ("source ip", r(&self.src)),
            ("NAT'd source ip", "any".into()),
            ("dest ip", r(&self.dst)),
            ("source port", r(&self.sport)),
            ("NAT'd source port", "any".into()),
            ("dest port", r(&self.dport)),
            ("policy id", r(&self.policy)),
            ("expire", r(&self.expire)),
            ("duration", r(&self.duration)),
            ("state1", "any".into()),
            ("state2", "any".into()),
        ];
        let mut out = String::from("session filter:\n");
        for (k, v) in lines {
            out.push_str(&format!("        {k}: {v}\n"));
        }
        out
    }

    pub fn matches(&self, s: &Session) -> bool {
        fn within<T: PartialOrd>(r: &Range<T>, v: T) -> bool {
            r.as_ref().is_none_or(|(lo, hi)| *lo <= v && v <= *hi)
        }
        self.vd.is_none_or(|vd| vd == 0)
            && self
                .sintf
                .as_deref()
                .is_none_or(|n| interface_index(n) == Some(s.dev_in))
            && self
                .dintf
                .as_deref()
                .is_none_or(|n| interface_index(n) == Some(s.dev_out))
            && within(&self.proto, s.proto as u32)
            && within(&self.src, s.src)
            && within(&self.dst, s.dst)
            && within(&self.sport, s.sport as u32)
            && within(&self.dport, s.dport as u32)
            && within(&self.policy, s.policy)
            && within(&self.expire, s.expire)
            && within(&self.duration, s.duration)
    }
}

//! The idle timer a UDP trading session lives by, from the configuration and from the live
//! session, for `fortigate.service.udp-idle` and `fortigate.session.idle-margin`.
//!
//! Precedence (KB "Priority of session-ttl settings", KB 191228): a `session-ttl` on the
//! service overrides one on the policy, which overrides a matching `config system session-ttl`
//! port entry; the table's `default` is not seen to apply to UDP (UDP sessions without a TTL
//! print `timeout=0`: research §6, inferred from real outputs). Without a TTL, UDP idles out
//! after the service's `udp-idle-timer`, else the global one (180 s by default). The live
//! session's `timeout=` is the ground truth when a session exists: `never`, a TTL in seconds,
//! or `0` for "the UDP idle timer applies".

use crate::outcome::part_error;
use premarket_core::Verdict;
use premarket_parse::{AnyQuery, Facts};
use premarket_platform::fortigate::{
    FirewallPolicy, FirewallService, GetSystemGlobal, SessionSummary, SessionTtl, ShowService, Ttl,
};

/// Where a timer comes from, so a remedy changes the right setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    ServiceTtl(String),
    PolicyTtl(u32),
    SystemPort(String),
    ServiceIdle(String),
    GlobalIdle,
}

impl Source {
    pub fn describe(&self) -> String {
        match self {
            Source::ServiceTtl(s) => format!("session-ttl of service \"{s}\""),
            Source::PolicyTtl(p) => format!("session-ttl of policy {p}"),
            Source::SystemPort(id) => format!("`config system session-ttl` port entry {id}"),
            Source::ServiceIdle(s) => format!("udp-idle-timer of service \"{s}\""),
            Source::GlobalIdle => "global udp-idle-timer (the service sets none)".to_string(),
        }
    }

    /// The CLI lines that set this timer to `seconds`.
    pub fn remedy(&self, service: &str, seconds: u64) -> String {
        match self {
            Source::ServiceTtl(s) => format!(
                "`config firewall service custom`, `edit \"{s}\"`, `set session-ttl {seconds}`, `end`"
            ),
            Source::PolicyTtl(p) => format!(
                "`config firewall policy`, `edit {p}`, `set session-ttl {seconds}`, `end` (or set it on service \"{service}\")"
            ),
            Source::SystemPort(id) => format!(
                "`config system session-ttl`, `config port`, `edit {id}`, `set timeout {seconds}`, `end`, `end`"
            ),
            Source::ServiceIdle(_) | Source::GlobalIdle => format!(
                "`config firewall service custom`, `edit \"{service}\"`, `set udp-idle-timer {seconds}`, `end` (it affects only traffic using this service)"
            ),
        }
    }
}

/// A timer and where it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer {
    pub ttl: Ttl,
    pub source: Source,
}

/// The UDP idle timer of traffic using `service` (a session that prints `timeout=0`).
pub fn idle(service: Option<&FirewallService>, global: Option<u64>) -> Result<Timer, NoIdleTimer> {
    if let Some(s) = service
        && let Some(t) = s.udp_idle_timer_s
    {
        return Ok(Timer {
            ttl: Ttl::Seconds(t),
            source: Source::ServiceIdle(s.name.clone()),
        });
    }
    global
        .map(|t| Timer {
            ttl: Ttl::Seconds(t),
            source: Source::GlobalIdle,
        })
        .ok_or(NoIdleTimer)
}

/// `timeout=0` (the idle timer) cannot be resolved: the global setting was not printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("get system global printed no udp-idle-timer")]
pub struct NoIdleTimer;

/// What the configuration gives a UDP flow to `dport` through `service` and `policy`.
pub fn configured(
    service: &FirewallService,
    policy: Option<&FirewallPolicy>,
    table: &SessionTtl,
    global: Option<u64>,
    dport: Option<u16>,
) -> Result<Timer, NoIdleTimer> {
    if let Some(ttl) = service.session_ttl {
        return Ok(Timer {
            ttl,
            source: Source::ServiceTtl(service.name.clone()),
        });
    }
    if let Some(p) = policy
        && let Some(ttl) = p.session_ttl
    {
        return Ok(Timer {
            ttl,
            source: Source::PolicyTtl(p.id),
        });
    }
    let port = table.ports.iter().find(|e| {
        matches!(e.protocol, 0 | 17)
            && match (dport, e.start_port, e.end_port) {
                (_, None, None) => true,
                (Some(d), start, end) => {
                    start.unwrap_or(0) <= d && d <= end.or(start).unwrap_or(u16::MAX)
                }
                (None, _, _) => false,
            }
    });
    if let Some(e) = port {
        return Ok(Timer {
            ttl: e.timeout,
            source: Source::SystemPort(e.id.clone()),
        });
    }
    idle(Some(service), global)
}

/// The least timer the live sessions print (`timeout=`), `0` resolved to the idle timer;
/// `None` without a session or a readable `timeout=`.
pub fn live(
    sessions: &SessionSummary,
    service: Option<&FirewallService>,
    global: Option<u64>,
) -> Option<Result<Ttl, NoIdleTimer>> {
    let mut least: Option<Result<Ttl, NoIdleTimer>> = None;
    for key in sessions.timeouts.0.keys() {
        let ttl = match Ttl::parse(key) {
            Ok(Ttl::Seconds(0)) => idle(service, global).map(|t| t.ttl),
            Ok(ttl) => Ok(ttl),
            Err(_) => continue, // `(not printed)`, `(other)`
        };
        least = Some(match (least, ttl) {
            (Some(Err(e)), _) | (_, Err(e)) => Err(e),
            (None, Ok(t)) => Ok(t),
            (Some(Ok(a)), Ok(b)) => Ok(sooner(a, b)),
        });
    }
    least
}

fn sooner(a: Ttl, b: Ttl) -> Ttl {
    match (a, b) {
        (Ttl::Seconds(x), Ttl::Seconds(y)) => Ttl::Seconds(x.min(y)),
        (Ttl::Seconds(x), Ttl::Never) | (Ttl::Never, Ttl::Seconds(x)) => Ttl::Seconds(x),
        (Ttl::Never, Ttl::Never) => Ttl::Never,
    }
}

/// The service named in the baseline, its query, and the global timer: what resolving
/// `timeout=0` needs. The service's absence is `Ok(None)` (its own check says so).
pub fn service_and_global<'f>(
    facts: &'f Facts,
    name: &str,
    service: Option<&str>,
) -> Result<(Option<&'f FirewallService>, Option<u64>), Box<Verdict>> {
    let service = match service {
        None => None,
        Some(s) => facts
            .get(&ShowService(s.to_string()))
            .map_err(|e| Box::new(part_error(name, &e)))?
            .service
            .as_ref(),
    };
    let global = facts
        .get(&GetSystemGlobal)
        .map_err(|e| Box::new(part_error(name, &e)))?
        .udp_idle_timer_s;
    Ok((service, global))
}

/// The queries [`service_and_global`] reads.
pub fn queries(service: Option<&str>) -> Vec<Box<dyn AnyQuery>> {
    let mut out: Vec<Box<dyn AnyQuery>> = Vec::new();
    if let Some(s) = service {
        out.push(Box::new(ShowService(s.to_string())));
    }
    out.push(Box::new(GetSystemGlobal));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_platform::fortigate::SessionTtlPort;

    fn service(idle: Option<u64>, ttl: Option<Ttl>) -> FirewallService {
        FirewallService {
            name: "MD".into(),
            udp_idle_timer_s: idle,
            session_ttl: ttl,
            ..FirewallService::default()
        }
    }

    fn table(ports: Vec<SessionTtlPort>) -> SessionTtl {
        SessionTtl {
            default: Ttl::Seconds(3600),
            default_set: false,
            ports,
        }
    }

    fn port(protocol: u8, range: Option<(u16, u16)>, timeout: Ttl) -> SessionTtlPort {
        SessionTtlPort {
            id: "1".into(),
            protocol,
            start_port: range.map(|r| r.0),
            end_port: range.map(|r| r.1),
            timeout,
            refresh_direction: None,
        }
    }

    #[test]
    fn precedence() {
        let policy = FirewallPolicy {
            id: 1,
            name: None,
            enabled: true,
            action: None,
            auto_asic_offload: true,
            np_acceleration: true,
            inspection_mode: "flow".into(),
            profiles: Default::default(),
            services: vec!["MD".into()],
            session_ttl: Some(Ttl::Seconds(900)),
            srcintf: vec![],
            dstintf: vec![],
        };
        let never_port = table(vec![port(17, Some((5000, 5000)), Ttl::Never)]);
        let at = |s: &FirewallService, p: Option<&FirewallPolicy>, t: &SessionTtl| {
            configured(s, p, t, Some(180), Some(5000)).unwrap()
        };
        let t = at(
            &service(Some(600), Some(Ttl::Seconds(7200))),
            Some(&policy),
            &never_port,
        );
        assert_eq!(
            (t.ttl, t.source),
            (Ttl::Seconds(7200), Source::ServiceTtl("MD".into()))
        );
        let t = at(&service(Some(600), None), Some(&policy), &never_port);
        assert_eq!((t.ttl, t.source), (Ttl::Seconds(900), Source::PolicyTtl(1)));
        let t = at(&service(Some(600), None), None, &never_port);
        assert_eq!(
            (t.ttl, t.source),
            (Ttl::Never, Source::SystemPort("1".into()))
        );
        let other_port = table(vec![
            port(6, None, Ttl::Never),
            port(17, Some((6000, 6010)), Ttl::Never),
        ]);
        let t = at(&service(Some(600), None), None, &other_port);
        assert_eq!(
            (t.ttl, t.source),
            (Ttl::Seconds(600), Source::ServiceIdle("MD".into()))
        );
        let t = at(&service(None, None), None, &table(vec![]));
        assert_eq!((t.ttl, t.source), (Ttl::Seconds(180), Source::GlobalIdle));
        assert!(configured(&service(None, None), None, &table(vec![]), None, Some(5000)).is_err());
    }
}

//! `diagnose sys session list`: one block per session, from `session info:` to the next, ending
//! with `total session N`. A busy box lists hundreds of thousands of sessions, so the parser
//! streams: [`SessionReader`] reads any [`BufRead`](std::io::BufRead) in bounded memory and yields one [`Session`]
//! at a time, keeping only the fields checks read. The pipeline folds the sessions into a
//! bounded [`super::SessionSummary`] as they stream; [`parse`] keeps every session, for small
//! lists only.
//!
//! The grammar is word based, not line based, so the same code reads device output, web copies
//! that lost their line breaks or indentation, CRLF, and output with `--More--` pager remnants
//! (`\r` and backspaces count as white space; the pager word is skipped).
//!
//! Offload (per direction, original `O` and reply `R`): the `ofld-O`/`ofld-R` labels after
//! `npu_state` when printed (`no_offload` means neither); otherwise bits `0x400`/`0x800` of
//! `npu_state`; otherwise a non-zero `npu info: offload=O/R` (old builds print `npu_state=00000000`
//! even for offloaded sessions). The `reflect info` sub-block of transparent-mode sessions
//! belongs to the reflected copy and is ignored.
//!
//! Hostile or damaged output is an error, never a plausible session: a field the checks read
//! that is unreadable (a sign, an overflow, `proto=999`) or printed twice with two values, a
//! block without `proto=` or `policy_id=` (cut, or not a session), a `total session` line that
//! disagrees with the blocks read or exceeds any real session table ([`MAX_SESSIONS`]).
//!
//! The parts: `session` names one session, `scanner` is the word grammar of a block, and
//! `reader` streams the list through it; this module holds the whole-list [`parse`].

mod reader;
mod scanner;
mod session;

pub use reader::SessionReader;
pub use session::{MAX_SESSIONS, OffloadBasis, Session};

use serde::{Deserialize, Serialize};

use premarket_parse::ParseError;

/// A whole list held in memory: the sessions and the `total session N` line. For small lists
/// only (one flow's session, a test); the pipeline reads the list as a bounded
/// [`super::SessionSummary`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionList {
    pub total: Option<u64>,
    pub sessions: Vec<Session>,
}

/// Parses a whole output held in memory into every session it lists.
pub fn parse(raw: &str) -> Result<SessionList, ParseError> {
    let mut reader = SessionReader::new(raw.as_bytes());
    let mut sessions = Vec::new();
    let mut first_error = None;
    for session in reader.by_ref() {
        match session {
            Ok(s) if first_error.is_none() => sessions.push(s),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // A count that disagrees says more (the list was cut) than the damaged block it leaves.
    let total = reader.finish()?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(SessionList { total, sessions }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fortigate::ttl::Ttl;

    const TWO: &str = "FGT201G # diagnose sys session list\n\nsession info: proto=17 proto_state=01 duration=40 expire=178 timeout=0 flags=00000000 socktype=0 sockport=0 av_idx=0 use=3\nstate=may_dirty npu \nstatistic(bytes/packets/allow_err): org=92/2/1 reply=0/0/0 tuples=2\norgin->sink: org pre->post, reply pre->post dev=5->6/6->5 gwy=0.0.0.0/0.0.0.0\nhook=pre dir=org act=noop 10.1.1.10:40000->10.2.2.20:5000(0.0.0.0:0)\nhook=post dir=reply act=noop 10.2.2.20:5000->10.1.1.10:40000(0.0.0.0:0)\nmisc=0 policy_id=1 pol_uuid_idx=1 auth_info=0 chk_client_info=0 vd=0\nnpu_state=0x4000400 ofld-O\nnpu info: flag=0x81/0x00, offload=9/0, ips_offload=0/0\nno_ofld_reason: \nsession info: proto=17 proto_state=01 duration=3 expire=177 timeout=0\nstatistic(bytes/packets/allow_err): org=460/10/1 reply=0/0/0 tuples=2\nhook=post dir=org act=snat 10.1.1.11:40001->10.2.2.20:5000(192.0.2.1:40001)\nmisc=0 policy_id=2 vd=0\nnpu_state=0x4000001 no_offload\nno_ofld_reason:  disabled-by-policy\ntotal session 2\n\nFGT201G # ";

    #[test]
    fn reads_tuples_counters_and_offload() {
        let list = parse(TWO).unwrap();
        assert_eq!(list.total, Some(2));
        let [a, b] = list.sessions.as_slice() else {
            panic!("{list:?}")
        };
        assert_eq!(
            (a.proto, a.sport, a.dport, a.policy_id, a.expire),
            (
                Some(17),
                Some(40000),
                Some(5000),
                Some(1),
                Some(Ttl::Seconds(178))
            )
        );
        assert_eq!(a.src, Some("10.1.1.10".parse().unwrap()));
        assert_eq!((a.org_packets, a.reply_packets), (Some(2), Some(0)));
        assert!(a.offload_org && !a.offload_reply && a.offloaded());
        assert_eq!(a.npu_state.as_deref(), Some("0x4000400 ofld-O"));
        assert!(a.no_ofld_reason.is_empty());
        assert_eq!(b.src, Some("10.1.1.11".parse().unwrap()));
        assert!(!b.offload_org && !b.offloaded());
        assert_eq!(b.no_ofld_reason, vec!["disabled-by-policy"]);
        assert_eq!(b.offload_basis, OffloadBasis::Labels);
    }

    #[test]
    fn paged_crlf_and_flattened_give_the_same_facts() {
        let plain = parse(TWO).unwrap();
        let crlf = parse(&TWO.replace('\n', "  \r\n")).unwrap();
        let paged = parse(&TWO.replace("misc=0", "--More-- \r          \rmisc=0").replace("npu info", "--More--\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}        \u{8}\u{8}\u{8}npu info")).unwrap();
        let flat = parse(&TWO.replace('\n', " ")).unwrap();
        let unindented = parse(
            &TWO.lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .unwrap();
        assert_eq!(plain, crlf);
        assert_eq!(plain, paged);
        assert_eq!(plain, flat);
        assert_eq!(plain, unindented);
    }

    #[test]
    fn decision_rule() {
        let one = |npu: &str| {
            parse(&format!("session info: proto=6 expire=1\nstatistic(bytes/packets/allow_err): org=1/1/0 reply=1/1/0 tuples=2\nmisc=0 policy_id=1\n{npu}\ntotal session 1\n")).unwrap().sessions.remove(0)
        };
        let both = |s: &Session| (s.offload_org, s.offload_reply, s.offload_basis);
        assert_eq!(
            both(&one("npu_state=0x4000c00 ofld-O ofld-R")),
            (true, true, OffloadBasis::Labels)
        );
        assert_eq!(
            both(&one("npu_state=0x000c00")),
            (true, true, OffloadBasis::NpuState)
        );
        assert_eq!(
            both(&one(
                "npu_state=00000000\nnpu info: flag=0x81/0x81, offload=4/4, ips_offload=0/0"
            )),
            (true, true, OffloadBasis::NpuInfo)
        );
        assert_eq!(
            both(&one("npu_state=0x001108")),
            (false, false, OffloadBasis::NpuState)
        );
        assert_eq!(
            both(&one("npu_state=0x4000c01 no_offload")),
            (false, false, OffloadBasis::Labels)
        );
        assert_eq!(both(&one("")), (false, false, OffloadBasis::Nothing));
        let reflect = one(
            "npu_state=0x000100\nno_ofld_reason:  npu-flag-off\nreflect info 0:\ndev=18->17/17->18\nnpu_state=0x000c00\nnpu info: flag=0x81/0x81, offload=9/9\nno_ofld_reason: other\ntotal reflect session num: 1",
        );
        assert_eq!(both(&reflect), (false, false, OffloadBasis::NpuState));
        assert_eq!(reflect.no_ofld_reason, vec!["npu-flag-off"]);
    }

    #[test]
    fn empty_garbage_and_cut() {
        assert_eq!(
            parse("FGT # diagnose sys session list\ntotal session 0\nFGT # ")
                .unwrap()
                .sessions
                .len(),
            0
        );
        assert!(parse("total session: 0").is_ok());
        assert!(parse("").is_err());
        assert!(parse("hello world").is_err());
        assert!(parse("Unknown action 0").is_err());
        assert!(parse("session info: proto=6 policy_id=1\ntotal session 3\n").is_err());
        assert!(parse("session info: proto=6 duration=3 expire=1\ntotal session 1\n").is_err());
    }

    #[test]
    fn never_expires() {
        let never = TWO.replacen("expire=178 timeout=0", "expire=never timeout=never", 1);
        let a = parse(&never).unwrap().sessions.remove(0);
        assert_eq!((a.expire, a.timeout), (Some(Ttl::Never), Some(Ttl::Never)));
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(
            (&json["expire"], &json["timeout"]),
            (&"never".into(), &"never".into())
        );
        assert_eq!(serde_json::from_value::<Session>(json).unwrap(), a);
    }

    #[test]
    fn impossible_and_disagreeing_values_are_errors() {
        for (from, to) in [
            ("expire=178", "expire=-178"),
            ("expire=178", "expire=forever"),
            (
                "proto=17 proto_state=01 duration=40",
                "proto=999 proto_state=01 duration=40",
            ),
            ("duration=40", "duration=99999999999999999999"),
            ("policy_id=1 ", "policy_id=4294967296 "),
            ("org=92/2/1", "org=92/-2/1"),
            ("npu_state=0x4000400", "npu_state=0xZZ"),
            ("offload=9/0", "offload=9/x"),
            ("policy_id=1 ", "policy_id=1 policy_id=2 "),
            ("expire=178", "expire=178 expire=100"),
            ("total session 2", "total session 99999999999"),
            ("total session 2", "total session 2\ntotal session 3"),
        ] {
            assert!(TWO.contains(from), "{from}");
            let bad = TWO.replacen(from, to, 1);
            let e = parse(&bad).expect_err(to);
            assert!(!e.excerpt.is_empty(), "{to}: no excerpt");
        }
        let repeated = TWO.replacen("policy_id=1 ", "policy_id=1 policy_id=1 ", 1);
        assert_eq!(parse(&repeated).unwrap(), parse(TWO).unwrap());
        let e = parse(&TWO.replacen("policy_id=2", "policy_id=2 policy_id=3", 1)).unwrap_err();
        assert!(e.reason.contains("session block 2"), "{}", e.reason);
        assert!(e.excerpt.contains("10.1.1.11"), "{}", e.excerpt);
    }

    #[test]
    fn streams_from_a_reader_in_small_pieces() {
        let reader = std::io::BufReader::with_capacity(7, TWO.as_bytes());
        let sessions: Vec<Session> = SessionReader::new(reader)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(sessions, parse(TWO).unwrap().sessions);
    }
}

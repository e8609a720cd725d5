//! The emulated `diagnose sys session list` in the FortiOS 7.x layout: the sessions of the
//! table that the filter matches, one block each, made while the client reads (a burst of
//! 200,000 sessions is never held whole), then `total session N`.

use super::super::device::Stream;
use super::session_filter::Filter;
use super::sessions::{Path, Session, Table};

/// `diagnose sys session list` output for `sessions`.
#[cfg(test)]
pub fn render_list(sessions: &[&Session]) -> String {
    let mut out = String::new();
    for s in sessions {
        render_one(&mut out, s);
        out.push('\n');
    }
    out.push_str(&format!("total session {}\n", sessions.len()));
    out
}

/// `diagnose sys session list` of the sessions of `table` that `filter` matches, one session
/// per piece, made as the client reads, ending with the `total session N` line.
pub fn list_stream(table: Table, filter: Filter) -> Stream {
    let mut matched = 0usize;
    let mut sessions = table.into_sessions().filter(move |s| filter.matches(s));
    let mut done = false;
    Stream::new(std::iter::from_fn(move || {
        if done {
            return None;
        }
        match sessions.next() {
            Some(s) => {
                matched += 1;
                let mut out = String::with_capacity(1_400);
                render_one(&mut out, &s);
                out.push('\n');
                Some(out)
            }
            None => {
                done = true;
                Some(format!("total session {matched}\n"))
            }
        }
    }))
}

fn render_one(out: &mut String, s: &Session) {
    // One-way UDP (a feed, a first packet) stays in state 00; UDP with replies is 01.
    let proto_state = match (s.proto, s.reply.1 > 0) {
        (6, _) => "11",
        (_, true) => "01",
        (_, false) => "00",
    };
    let state = match s.path {
        Path::Offloaded => "may_dirty npu ",
        Path::NotEstablished => "may_dirty npu ",
        Path::DisabledByPolicy | Path::SflowInterface => "may_dirty ",
        Path::Local => "local may_dirty ",
    };
    let (org_pre, reply_post) = match s.path {
        Path::Local if s.dev_out == 31 => ("pre->in", "out->post"),
        Path::Local => ("out->post", "pre->in"),
        _ => ("pre->post", "pre->post"),
    };
    out.push_str(&format!(
        "session info: proto={} proto_state={proto_state} duration={} expire={} timeout={} flags=00000000 socktype=0 sockport=0 av_idx=0 use=3\n",
        s.proto, s.duration, s.expire, s.timeout
    ));
    out.push_str("origin-shaper=\nreply-shaper=\nper_ip_shaper=\n");
    out.push_str("class_id=0 ha_id=0 policy_dir=0 tunnel=/ vlan_cos=0/255\n");
    out.push_str(&format!("state={state}\n"));
    out.push_str(&format!(
        "statistic(bytes/packets/allow_err): org={}/{}/1 reply={}/{}/{} tuples=2\n",
        s.org.0,
        s.org.1,
        s.reply.0,
        s.reply.1,
        u8::from(s.reply.1 > 0)
    ));
    out.push_str("tx speed(Bps/kbps): 0/0 rx speed(Bps/kbps): 0/0\n");
    out.push_str(&format!(
        "orgin->sink: org {org_pre}, reply {reply_post} dev={}->{}/{}->{} gwy=0.0.0.0/0.0.0.0\n",
        s.dev_in, s.dev_out, s.dev_out, s.dev_in
    ));
    out.push_str(&format!(
        "hook=pre dir=org act=noop {}:{}->{}:{}(0.0.0.0:0)\n",
        s.src, s.sport, s.dst, s.dport
    ));
    out.push_str(&format!(
        "hook=post dir=reply act=noop {}:{}->{}:{}(0.0.0.0:0)\n",
        s.dst, s.dport, s.src, s.sport
    ));
    out.push_str("pos/(before,after) 0/(0,0), 0/(0,0)\n");
    out.push_str(&format!(
        "src_mac=00:0c:29:{:02x}:01:0a dst_mac=00:0c:29:{:02x}:02:14\n",
        s.dev_in, s.dev_out
    ));
    out.push_str(&format!(
        "misc=0 policy_id={} pol_uuid_idx={} auth_info=0 chk_client_info=0 vd=0:0\n",
        s.policy,
        if s.policy == u32::MAX {
            0
        } else {
            600 + s.policy
        }
    ));
    out.push_str(&format!(
        "serial={:08x} tos=ff/ff app_list=0 app=0 url_cat=0\n",
        s.serial
    ));
    out.push_str("rpdb_link_id=00000000 ngfwid=n/a\n");
    match s.path {
        Path::Offloaded if s.bidirectional => {
            out.push_str("npu_state=0x4000c00 ofld-O ofld-R\n");
            out.push_str("npu info: flag=0x81/0x81, offload=9/9, ips_offload=0/0, epid=130/131, ipid=131/130, vlan=0x0000/0x0000\n");
            out.push_str("vlifid=131/130, vtag_in=0x0000/0x0000 in_npu=1/1, out_npu=1/1, fwd_en=0/0, qid=2/2\n");
        }
        Path::Offloaded => {
            out.push_str("npu_state=0x4000400 ofld-O\n");
            out.push_str("npu info: flag=0x81/0x00, offload=9/0, ips_offload=0/0, epid=130/0, ipid=131/0, vlan=0x0000/0x0000\n");
            out.push_str("vlifid=131/0, vtag_in=0x0000/0x0000 in_npu=1/0, out_npu=1/0, fwd_en=0/0, qid=2/0\n");
        }
        Path::DisabledByPolicy => {
            out.push_str("npu_state=0x4000001 no_offload\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  disabled-by-policy\n");
        }
        Path::NotEstablished => {
            out.push_str("npu_state=0x4000000\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  not-established\n");
        }
        Path::SflowInterface => {
            out.push_str("npu_state=0x4000000\n");
            push_no_npu(out);
            out.push_str("no_ofld_reason:  sflow\n");
        }
        Path::Local => {
            out.push_str("npu_state=0x4000000\n");
            out.push_str("no_ofld_reason:  local\n");
        }
    }
}

fn push_no_npu(out: &mut String) {
    out.push_str("npu info: flag=0x00/0x00, offload=0/0, ips_offload=0/0, epid=0/0, ipid=0/0, vlan=0x0000/0x0000\n");
    out.push_str(
        "vlifid=0/0, vtag_in=0x0000/0x0000 in_npu=0/0, out_npu=0/0, fwd_en=0/0, qid=0/0\n",
    );
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::{Fault, Faults};
    use super::super::config::Config;
    use super::super::sessions::table;
    use super::*;

    #[test]
    fn filter_set_readback_match() {
        let config = Config::new("fw1", &Faults::default());
        let sessions = table(&config, &Faults::default());
        let mut f = Filter::default();
        assert!(f.readback().contains("        source ip: any\n"));
        f.set("src", &["10.10.1.10"]).unwrap();
        f.set("dport", &["5000"]).unwrap();
        f.set("proto", &["17"]).unwrap();
        assert!(
            f.readback()
                .contains("        source ip: 10.10.1.10-10.10.1.10\n")
        );
        assert!(f.readback().contains("        dest port: 5000-5000\n"));
        let hits: Vec<Session> = sessions.iter().filter(|s| f.matches(s)).collect();
        assert_eq!(hits.len(), 1);
        let text = render_list(&hits.iter().collect::<Vec<_>>());
        assert!(
            text.contains("npu_state=0x4000400 ofld-O\n") && text.ends_with("total session 1\n"),
            "{text}"
        );
        // The feed is one-way UDP: FortiOS keeps it in proto_state 00.
        assert!(
            text.starts_with("session info: proto=17 proto_state=00 "),
            "{text}"
        );
        assert_eq!(list_stream(sessions, f.clone()).collect_text(), text);
        assert!(f.set("bogus", &[]).is_err());
        assert!(f.set("dport", &["x"]).is_err());
        f.set("clear", &[]).unwrap();
        assert!(f.is_empty());
    }

    #[test]
    fn a_huge_list_is_made_lazily_with_the_flow_in_the_middle() {
        let faults = Faults::only(Fault::HugeSessionList);
        let t = table(&Config::new("fw1", &faults), &faults);
        let mut f = Filter::default();
        for (k, v) in [
            ("proto", "17"),
            ("src", "10.10.1.10"),
            ("dst", "10.20.1.20"),
            ("dport", "5000"),
        ] {
            f.set(k, &[v]).unwrap();
        }
        let mut pieces = list_stream(t.clone(), f);
        let mut count = 0usize;
        let mut offloaded_at = None;
        let mut last = String::new();
        for piece in pieces.by_ref() {
            if piece.contains("ofld-O") {
                offloaded_at = Some(count);
            }
            count += 1;
            last = piece;
        }
        assert_eq!(last, "total session 200001\n");
        assert_eq!(count, 200_002);
        let at = offloaded_at.unwrap();
        assert!((90_000..110_000).contains(&at), "{at}");
        assert_eq!(t.counts().total, 200_004);
    }
}

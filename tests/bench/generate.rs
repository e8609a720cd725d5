//! A generator of `diagnose sys session list` output for the session-list benchmark: realistic
//! 7.x blocks (~1 KB each) with varied addresses, ports, counters and offload states, streamed
//! to a writer so that generating a gigabyte needs no memory.

use std::io::{self, Write};

/// What the generator wrote, to check the parser against.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Written {
    pub sessions: u64,
    pub offloaded: u64,
    pub bytes: u64,
}

/// Writes `count` sessions and the `total session N` line.
pub fn sessions(out: &mut impl Write, count: u64) -> io::Result<Written> {
    let mut written = Written::default();
    let mut line = Vec::with_capacity(2048);
    for i in 0..count {
        line.clear();
        let offloaded = i % 10 != 0;
        block(&mut line, i, offloaded)?;
        out.write_all(&line)?;
        written.sessions += 1;
        written.offloaded += u64::from(offloaded);
        written.bytes += line.len() as u64;
    }
    let tail = format!("total session {count}\n");
    out.write_all(tail.as_bytes())?;
    written.bytes += tail.len() as u64;
    Ok(written)
}

fn block(out: &mut Vec<u8>, i: u64, offloaded: bool) -> io::Result<()> {
    let (proto, dport) = if i.is_multiple_of(3) {
        (6, 443)
    } else {
        (17, 5000 + (i % 50) as u16)
    };
    let sport = 1024 + (i * 7919 % 64000) as u16;
    let (a, b, c) = ((i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff);
    let expire = 10 + i % 3590;
    let packets = 2 + i % 100_000;
    let policy = 1 + i % 40;
    writeln!(
        out,
        "session info: proto={proto} proto_state=01 duration={} expire={expire} timeout={} refresh_dir=both flags=00000000 socktype=0 sockport=0 av_idx=0 use=3",
        i % 86_400,
        if proto == 6 { 3600 } else { 0 }
    )?;
    out.extend_from_slice(b"origin-shaper=\nreply-shaper=\nper_ip_shaper=\nclass_id=0 ha_id=0 policy_dir=0 tunnel=/ vlan_cos=0/255\n");
    out.extend_from_slice(if offloaded {
        b"state=log may_dirty npu f00 \n"
    } else {
        b"state=log may_dirty f00 \n"
    });
    writeln!(
        out,
        "statistic(bytes/packets/allow_err): org={}/{packets}/1 reply={}/{}/1 tuples=2",
        packets * 46,
        packets * 40,
        packets / 2
    )?;
    writeln!(
        out,
        "tx speed(Bps/kbps): {}/0 rx speed(Bps/kbps): {}/0",
        i % 900,
        i % 700
    )?;
    out.extend_from_slice(
        b"orgin->sink: org pre->post, reply pre->post dev=9->17/17->9 gwy=10.0.0.1/10.1.0.1\n",
    );
    writeln!(
        out,
        "hook=pre dir=org act=noop 10.{a}.{b}.{c}:{sport}->172.16.{b}.{c}:{dport}(0.0.0.0:0)"
    )?;
    writeln!(
        out,
        "hook=post dir=reply act=noop 172.16.{b}.{c}:{dport}->10.{a}.{b}.{c}:{sport}(0.0.0.0:0)"
    )?;
    out.extend_from_slice(b"pos/(before,after) 0/(0,0), 0/(0,0)\nsrc_mac=02:09:65:3a:0d:01 dst_mac=00:09:0f:09:00:03\n");
    writeln!(
        out,
        "misc=0 policy_id={policy} pol_uuid_idx={} auth_info=0 chk_client_info=0 vd=0:1",
        14_000 + policy
    )?;
    writeln!(out, "serial={:08x} tos=ff/ff app_list=0 app=0 url_cat=0", i)?;
    out.extend_from_slice(b"rpdb_link_id=00000000 ngfwid=n/a\n");
    if offloaded {
        out.extend_from_slice(b"npu_state=0x4000c00 ofld-O ofld-R\nnpu info: flag=0x81/0x81, offload=9/9, ips_offload=0/0, epid=136/128, ipid=128/136, vlan=0x0000/0x0000\nvlifid=128/136, vtag_in=0x0000/0x0000 in_npu=1/1, out_npu=1/1, fwd_en=0/0, qid=4/4\n");
    } else {
        out.extend_from_slice(b"npu_state=0x4000001 no_offload\nnpu info: flag=0x00/0x00, offload=0/0, ips_offload=0/0, epid=0/0, ipid=0/0, vlan=0x0000/0x0000\nvlifid=0/0, vtag_in=0x0000/0x0000 in_npu=0/0, out_npu=0/0, fwd_en=0/0, qid=0/0\nno_ofld_reason:  disabled-by-policy\n");
    }
    Ok(())
}

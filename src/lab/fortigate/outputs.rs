//! Text an emulated FortiGate prints for its status commands, rendered from its state. Shapes
//! follow the FortiOS 7.x outputs in the research notes; the values are the lab's own.

use super::super::clock;
use super::super::scenario::Fault;
use super::super::topology;
use super::model::Release;
use super::sessions;
use super::state::FgState;

pub fn system_status(s: &FgState) -> String {
    let now = chrono::Utc::now().with_timezone(&chrono_tz::Asia::Taipei);
    let ha = if s.ha_cluster() {
        "a-p, primary"
    } else {
        "standalone"
    };
    let text = format!(
        "Version: {model} v{version},build{build},{date} (GA.M)\n\
         First GA patch build date: 240725\n\
         Security Level: 2\n\
         Firmware Signature: certified\n\
         Virus-DB: 92.07345(2026-11-28 18:24)\n\
         Extended DB: 92.07345(2026-11-28 18:23)\n\
         Extreme DB: 1.00000(2018-04-09 18:07)\n\
         AV AI/ML Model: 3.05421(2026-11-28 20:33)\n\
         IPS-DB: 33.00987(2026-11-27 01:38)\n\
         IPS-ETDB: 0.00000(2001-01-01 00:00)\n\
         APP-DB: 33.00987(2026-11-27 01:38)\n\
         FMWP-DB: 24.00112(2026-11-20 14:02)\n\
         IPS Malicious URL Database: 5.00601(2026-11-28 21:44)\n\
         IoT-Detect: 0.00000(2022-08-17 17:31)\n\
         OT-Threat-DB: 6.00245(2026-11-26 23:10)\n\
         IPS-Engine: 7.01085(2026-10-30 05:02)\n\
         Serial-Number: {serial}\n\
         BIOS version: 06000100\n\
         System Part-Number: P28312-02\n\
         Log hard disk: Available\n\
         Hostname: {host}\n\
         Private Encryption: Disable\n\
         Operation Mode: NAT\n\
         Current virtual domain: root\n\
         Max number of virtual domains: 10\n\
         Virtual domains status: {vdoms} in NAT mode, 0 in TP mode\n\
         Virtual domain configuration: {vdom_mode}\n\
         FIPS-CC mode: disable\n\
         Current HA mode: {ha}\n\
         Branch point: {build}\n\
         Release Version Information: GA\n\
         System time: {now}\n\
         Last reboot reason: {reason}\n",
        model = s.model,
        version = s.version,
        build = s.build,
        date = s.build_date,
        serial = s.serial,
        host = s.hostname,
        vdoms = if s.multi_vdom() { 2 } else { 1 },
        vdom_mode = if s.multi_vdom() {
            "multiple"
        } else {
            "disable"
        },
        now = now.format("%a %b %e %H:%M:%S %Y"),
        reason = if s.rebooted() {
            "power cycle"
        } else {
            "warm reboot"
        },
    );
    match s.spec.release {
        // 6.4 has no patch-date, security-level or reboot-reason lines (ntc-templates' 6.x
        // captures).
        Release::Fos64 => text
            .lines()
            .filter(|l| {
                !["First GA patch", "Security Level", "Last reboot reason"]
                    .iter()
                    .any(|p| l.starts_with(p))
            })
            .map(|l| format!("{l}\n"))
            .collect(),
        Release::Fos7 => text,
    }
}

/// CPU used (%) and session setup rate (per second) for the scenario.
fn load(s: &FgState) -> (u32, u32, u32) {
    // (user, system, setup rate)
    if s.faults.has(Fault::CpuHigh) {
        (61, 27, 850)
    } else if s.faults.has(Fault::NewSourcePort) {
        // 10,000 sessions in ten seconds: every send builds a session on the CPU.
        (3, 9, 1_000)
    } else if s.faults.has(Fault::HugeSessionList) {
        (1, 3, 56)
    } else {
        (0, 0, 0)
    }
}

pub fn performance_status(s: &FgState) -> String {
    let (user, system, rate) = load(s);
    let idle = 100 - user - system;
    let counts = s.sessions().counts();
    let (total, npu) = (counts.total, counts.npu);
    let up = s.uptime(clock::now());
    let mut out = format!(
        "CPU states: {user}% user {system}% system 0% nice {idle}% idle 0% iowait 0% irq 0% softirq\n"
    );
    for cpu in 0..4 {
        let (u, sy) = (user.saturating_sub(cpu % 2), system.saturating_sub(cpu / 2));
        out.push_str(&format!(
            "CPU{cpu} states: {u}% user {sy}% system 0% nice {}% idle 0% iowait 0% irq 0% softirq\n",
            100 - u - sy
        ));
    }
    out.push_str(&format!(
        "Memory: 8008312k total, 1721836k used (21.5%), 5731004k free (71.6%), 555472k freeable (6.9%)\n\
         Average network usage: 1204 / 1188 kbps in 1 minute, 1198 / 1180 kbps in 10 minutes, 1187 / 1176 kbps in 30 minutes\n\
         Maximal network usage: 1320 / 1301 kbps in 1 minute, 1415 / 1398 kbps in 10 minutes, 1415 / 1398 kbps in 30 minutes\n\
         Average sessions: {total} sessions in 1 minute, {total} sessions in 10 minutes, {total} sessions in 30 minutes\n\
         Maximal sessions: {total} sessions in 1 minute, {total} sessions in 10 minutes, {total} sessions in 30 minutes\n\
         Average session setup rate: {rate} sessions per second in last 1 minute, {rate} sessions per second in last 10 minutes, {rate} sessions per second in last 30 minutes\n\
         Maximal session setup rate: {rate} sessions per second in last 1 minute, {rate} sessions per second in last 10 minutes, {rate} sessions per second in last 30 minutes\n\
         Average NPU sessions: {npu} sessions in last 1 minute, {npu} sessions in last 10 minutes, {npu} sessions in last 30 minutes\n\
         Maximal NPU sessions: {npu} sessions in last 1 minute, {npu} sessions in last 10 minutes, {npu} sessions in last 30 minutes\n\
         Average nTurbo sessions: 0 sessions in last 1 minute, 0 sessions in last 10 minutes, 0 sessions in last 30 minutes\n\
         Maximal nTurbo sessions: 0 sessions in last 1 minute, 0 sessions in last 10 minutes, 0 sessions in last 30 minutes\n\
         Virus caught: 0 total in 1 minute\n\
         IPS attacks blocked: 0 total in 1 minute\n\
         Uptime: {days} days, {hours} hours, {minutes} minutes\n",
        days = up / 86_400,
        hours = up / 3_600 % 24,
        minutes = up / 60 % 60,
    ));
    out
}

pub fn ha_status(s: &FgState) -> String {
    let (user, system, _) = load(s);
    let idle = 100 - user - system;
    let counts = s.sessions().counts();
    let (total, npu) = (counts.total, counts.npu);
    let up = s.uptime(clock::now());
    let cluster_uptime = format!(
        "{} days {}:{:02}:{:02}",
        up / 86_400,
        up / 3_600 % 24,
        up / 60 % 60,
        up % 60
    );
    if !s.ha_cluster() {
        // No real 7.x standalone output exists; this is the research's inference from a real
        // 6.0 standalone (empty stats sections, no vcluster) with 7.2+'s `Group Name`/`Group ID`.
        return format!(
            "HA Health Status: OK\n\
             Model: {model}\n\
             Mode: Standalone\n\
             Group Name: \n\
             Group ID: 0\n\
             Debug: 0\n\
             Cluster Uptime: 0 days 0:0:0\n\
             Cluster state change time: N/A\n\
             ses_pickup: disable\n\
             override: disable\n\
             System Usage stats:\n\
             HBDEV stats:\n\
             number of vcluster: 0\n",
            model = s.model,
        );
    }
    let peer = format!("{}9", &s.serial[..s.serial.len() - 1]);
    // `ha-mismatch`: the secondary's configuration differs (another checksum).
    let (peer_sync, peer_sum) = if s.faults.has(Fault::HaMismatch) {
        (
            "out-of-sync",
            "8b 02 e6 51 3c a9 74 1d 60 f2 c8 0b 95 47 ee 21",
        )
    } else {
        ("in-sync", "4f 1a 9c 2e 77 d0 13 b5 e8 6a 20 c4 91 3d 5b 0f")
    };
    format!(
        "HA Health Status: OK\n\
         Model: {model}\n\
         Mode: HA A-P\n\
         Group Name: trading-ha\n\
         Group ID: 0\n\
         Debug: 0\n\
         Cluster Uptime: {cluster_uptime}\n\
         Cluster state change time: 2026-11-18 03:29:01\n\
         Primary selected using:\n\
         \x20   <2026/11/18 03:29:01> vcluster-1: {serial} is selected as the primary because its override priority is larger than peer member {peer}.\n\
         ses_pickup: disable\n\
         override: disable\n\
         Configuration Status:\n\
         \x20   {serial}(updated 3 seconds ago): in-sync\n\
         \x20   {serial} chksum dump: 4f 1a 9c 2e 77 d0 13 b5 e8 6a 20 c4 91 3d 5b 0f \n\
         \x20   {peer}(updated 2 seconds ago): {peer_sync}\n\
         \x20   {peer} chksum dump: {peer_sum} \n\
         System Usage stats:\n\
         \x20   {serial}(updated 3 seconds ago):\n\
         \x20       sessions={total}, npu-sessions={npu}, average-cpu-user/nice/system/idle={user}%/0%/{system}%/{idle}%, memory=21%\n\
         \x20   {peer}(updated 2 seconds ago):\n\
         \x20       sessions=0, npu-sessions=0, average-cpu-user/nice/system/idle=0%/0%/0%/100%, memory=19%\n\
         {links}Primary     : {host} , {serial}, HA cluster index = 1\n\
         Secondary   : {host} , {peer}, HA cluster index = 0\n\
         number of vcluster: 1\n\
         vcluster 1: work 169.254.0.2\n\
         Primary: {serial}, HA operating index = 0\n\
         Secondary: {peer}, HA operating index = 1\n",
        model = s.model,
        serial = s.serial,
        host = s.hostname,
        links = super::ha_links::tables(s, &peer, (3, 2)),
    )
}

pub fn session_stat(s: &FgState) -> String {
    let (_, _, rate) = load(s);
    let counts = s.sessions().counts();
    let (total, npu, tcp) = (counts.total, counts.npu, counts.tcp);
    let flush = s.flush;
    format!(
        "misc info:       session_count={total} setup_rate={rate} exp_count=0 reflect_count=0 clash=0\n\
         \x20       memory_tension_drop=0 ephemeral=0/2097152 removeable=0 extreme_low_mem=0\n\
         \x20       npu_session_count={npu}\n\
         \x20       nturbo_session_count=0\n\
         delete=0, flush={flush}, dev_down=0/0 ses_walkers=0\n\
         TCP sessions:\n\
         \x20        {tcp} in ESTABLISHED state\n\
         firewall error stat:\n\
         error1=00000000\n\
         error2=00000000\n\
         error3=00000000\n\
         error4=00000000\n\
         tt=00000000\n\
         cont=00000000\n\
         ips_recv=00000000\n\
         policy_deny=00000000\n\
         av_recv=00000000\n\
         fqdn_count=00000000\n\
         fqdn6_count=00000000\n\
         global: ses_limit=0 ses6_limit=0 rt_limit=0 rt6_limit=0\n"
    )
}

pub fn mcast_session_list(s: &FgState) -> String {
    let f = &topology::MULTICAST_FEED;
    let offload = s.config.entry_setting(
        "firewall multicast-policy",
        &f.policy.to_string(),
        "auto-asic-offload",
    ) != Some("disable")
        && !sessions::sflow_on_ingress(&s.config);
    let (pkts, bytes, npu) = if offload {
        (
            2,
            92,
            "session-npu-info: ipid/vlifid=131/132 vlanid/vtag_in=0/0 in_npuid=1 tae_index=3 qid=0 fwd_map=0x00000002",
        )
    } else {
        (
            10_000,
            460_000,
            "session-npu-info: ipid/vlifid=0/0 vlanid/vtag_in=0/0 in_npuid=0 tae_index=0 qid=0 fwd_map=0x00000000",
        )
    };
    format!(
        "session info: id=16 vf=0 proto={} {}.{}->{}.{}\n\
         used=2 path=1 duration=5321 expire=178 indev={} pkts={pkts} bytes={bytes}\n\
         state=00000000:\n\
         {npu}\n\
         path: log policy={}, outdev={}\n\
         Total 1 sessions\n",
        f.proto,
        topology::ip(f.src),
        f.sport,
        topology::ip(f.dst),
        f.dport,
        topology::PORT_IN_INDEX,
        f.policy,
        topology::PORT_OUT_INDEX,
    )
}

/// `get system global`: every key with its value (defaults included), `key : value` columns.
pub fn get_global(s: &FgState) -> String {
    let c = &s.config;
    let get = |k: &str, default: &str| {
        c.setting("system global", k)
            .unwrap_or(default)
            .trim_matches('"')
            .to_string()
    };
    let rows = [
        ("admin-sport", get("admin-sport", "443")),
        ("admin-ssh-port", get("admin-ssh-port", "22")),
        ("admintimeout", get("admintimeout", "5")),
        ("alias", get("alias", &s.model)),
        ("hostname", get("hostname", &s.hostname)),
        ("tcp-halfclose-timer", get("tcp-halfclose-timer", "120")),
        ("tcp-halfopen-timer", get("tcp-halfopen-timer", "10")),
        ("tcp-timewait-timer", get("tcp-timewait-timer", "1")),
        ("timezone", get("timezone", "Asia/Taipei")),
        (
            "udp-idle-timer",
            get("udp-idle-timer", &topology::GLOBAL_UDP_IDLE.to_string()),
        ),
    ];
    columns(&rows)
}

/// `get system console` (netmiko reads `output` from it).
pub fn get_console(s: &FgState) -> String {
    let output = s
        .config
        .setting("system console", "output")
        .unwrap_or("more")
        .to_string();
    columns(&[
        ("output", output),
        ("login", "enable".into()),
        ("fortiexplorer", "enable".into()),
    ])
}

fn columns(rows: &[(&str, String)]) -> String {
    rows.iter()
        .map(|(k, v)| format!("{k:<24}: {v}\n"))
        .collect()
}

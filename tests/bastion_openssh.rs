//! Jump hosts with a real OpenSSH server as the bastion in front of the lab's devices, and the
//! real binary: a run through one gives the verdicts a direct run gives, over one connection
//! to the bastion (one login, a `direct-tcpip` channel per device) and with nothing run on it;
//! two hops work; a bastion that refuses forwarding, cannot be reached, offers an unknown key
//! or refuses the login is one ERROR per device behind it, naming it and what it said, in
//! bounded time, while the other bastions' devices are inspected; 200 devices through one
//! bastion with OpenSSH's `MaxStartups 10:30:100` all log in.
//!
//! Mandatory when PREMARKET_REQUIRE_OPENSSH=1 (CI); skipped with the reason otherwise.

use std::time::Duration;

use crate::bastion_support::*;
use crate::common::sshd::{SSHD, openssh_available};
use premarket::lab::Lab;

fn available() -> bool {
    openssh_available(&[SSHD, "ssh-keygen"])
}

#[test]
fn a_run_through_an_openssh_bastion_gives_the_verdicts_of_a_direct_run() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
    let bastion = Bastion::start(Options::default());
    let dir = tempfile::tempdir().unwrap();
    let (direct, jumped) = (dir.path().join("direct"), dir.path().join("jumped"));
    copy_site(&lab.site_dir, &direct);
    copy_site(&lab.site_dir, &jumped);
    through(
        &jumped,
        &[bastion.entry("b1", "")],
        &[bastion.known_host()],
        |_| Some("b1".into()),
    );

    let (direct_report, direct_code, _) = run_site(&direct, &[]);
    let (report, code, _) = run_site(&jumped, &[]);

    assert!(
        report.devices_not_inspected.is_empty(),
        "{:?}",
        report.devices_not_inspected
    );
    assert_eq!(inspected(&report), ["fw1", "sw1"]);
    assert_eq!(verdicts(&report), verdicts(&direct_report));
    assert_eq!(code, direct_code);
    // One connection to the bastion, a channel per device, nothing run there.
    assert_eq!(
        bastion.logins_and_channels(),
        (1, 2),
        "{}",
        bastion.sshd.log()
    );
    assert!(!bastion.ran_something(), "a command ran on the bastion");
    assert!(lab.config_attempts().is_empty());

    // `trust` shows the path, and reaches the device through the bastion to see its key.
    let (code, said) = trust(&jumped, &["--device", "sw1"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.starts_with("sw1 via b1"), "{said}");
    let (code, said) = trust(&jumped, &["--bastion", "b1"]);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains(&bastion.fingerprint()), "{said}");
    // trust --device logged in to forward; trust --bastion only read the key.
    assert_eq!(
        bastion.logins_and_channels(),
        (2, 3),
        "{}",
        bastion.sshd.log()
    );
    assert!(!bastion.ran_something(), "a command ran on the bastion");
    rt.block_on(lab.shutdown());
}

#[test]
fn two_hops_through_two_openssh_bastions() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
    let (outer, inner) = (
        Bastion::start(Options::default()),
        Bastion::start(Options::default()),
    );
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    copy_site(&lab.site_dir, &site);
    through(
        &site,
        &[outer.entry("outer", ""), inner.entry("inner", "")],
        &[outer.known_host(), inner.known_host()],
        |_| Some("[outer, inner]".into()),
    );

    let (report, _, _) = run_site(&site, &[]);

    assert!(
        report.devices_not_inspected.is_empty(),
        "{:?}",
        report.devices_not_inspected
    );
    assert_eq!(inspected(&report), ["fw1", "sw1"]);
    // The outer bastion carried one channel, to the inner one; the inner one, the devices.
    assert_eq!(outer.logins_and_channels(), (1, 1), "{}", outer.sshd.log());
    assert_eq!(inner.logins_and_channels(), (1, 2), "{}", inner.sshd.log());
    assert!(outer.sshd.log().contains(&format!("port {}", inner.port())));
    assert!(!outer.ran_something() && !inner.ran_something());
    rt.block_on(lab.shutdown());
}

/// (device, what its bastion does, the cause said, fragments of what is said).
const FAILING: &[(&str, &str, &str, &[&str])] = &[
    (
        "fw1",
        "forwarding off",
        "bastion refused forwarding",
        &[
            "through bastion noforward: it refused to forward to 127.0.0.1:",
            "administratively prohibited",
        ],
    ),
    (
        "sw2",
        "nothing listening",
        "bastion unreachable",
        &["through bastion gone: cannot connect: 127.0.0.1:"],
    ),
    (
        "fw2",
        "a host key not in known_hosts",
        "bastion host key not trusted",
        &[
            "through bastion stranger: unknown host key for bastion stranger (127.0.0.1:",
            "premarket trust --bastion stranger",
        ],
    ),
    (
        "sw3",
        "a login it refuses",
        "bastion login refused",
        &["through bastion locked: authentication failed: user "],
    ),
    (
        "fw3",
        "a TCP port that never speaks SSH",
        "bastion unreachable",
        &[
            "through bastion silent: cannot connect: no SSH handshake with 127.0.0.1:",
            "within 3 s",
        ],
    ),
];

#[test]
fn each_failing_bastion_is_one_error_per_device_naming_it_and_the_others_are_inspected() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    // fw1 sw1 fw2 sw2 fw3 sw3: sw1 behind the good one.
    let lab = rt.block_on(Lab::start(&[], 6)).expect("lab");
    let good = Bastion::start(Options::default());
    let noforward = Bastion::start(Options {
        config: "AllowTcpForwarding no\n",
        ..Options::default()
    });
    let stranger = Bastion::start(Options::default());
    let locked = Bastion::start(Options {
        config: "AllowUsers nobody-at-all\n",
        ..Options::default()
    });
    let gone = crate::common::sshd::free_port();
    // Accepts TCP (the kernel completes the handshake) and never says a word.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let silent_port = silent.local_addr().unwrap().port();
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    copy_site(&lab.site_dir, &site);
    let elsewhere = |name: &str, port: u16| {
        good.entry(name, "")
            .replace(&format!("port: {}", good.port()), &format!("port: {port}"))
    };
    through(
        &site,
        &[
            good.entry("good", ""),
            noforward.entry("noforward", ""),
            elsewhere("gone", gone),
            elsewhere("silent", silent_port),
            stranger.entry("stranger", ""),
            locked.entry("locked", ""),
        ],
        // The stranger's key is not among them.
        &[
            good.known_host(),
            noforward.known_host(),
            locked.known_host(),
        ],
        |device| {
            Some(
                match device {
                    "fw1" => "noforward",
                    "sw2" => "gone",
                    "fw2" => "stranger",
                    "sw3" => "locked",
                    "fw3" => "silent",
                    _ => "good",
                }
                .into(),
            )
        },
    );

    let site_file = site.join("baselines/site.yaml");
    let text = std::fs::read_to_string(&site_file).unwrap();
    assert!(text.contains("connect_timeout_s: 10"));
    std::fs::write(
        &site_file,
        text.replace("connect_timeout_s: 10", "connect_timeout_s: 3"),
    )
    .unwrap();

    let (report, code, took) = run_site(&site, &[]);

    assert_eq!(code, 2, "an ERROR run exits 2");
    // Bounded by the connect timeout, not a hang on the silent one.
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(inspected(&report), ["sw1"]);
    for (device, what, cause, said) in FAILING {
        let down: Vec<_> = report
            .devices_not_inspected
            .iter()
            .filter(|d| d.device == *device)
            .collect();
        assert_eq!(down.len(), 1, "{device} ({what}): {down:?}");
        let down = down[0];
        assert_eq!(down.cause, *cause, "{device} ({what}): {}", down.what);
        for fragment in *said {
            assert!(
                down.what.contains(fragment),
                "{device} ({what}): {:?} lacks {fragment:?}",
                down.what
            );
        }
        assert!(!down.blocked.is_empty());
    }
    assert_eq!(report.devices_not_inspected.len(), FAILING.len());
    for bastion in [&good, &noforward, &stranger, &locked] {
        assert!(!bastion.ran_something());
    }
    rt.block_on(lab.shutdown());
}

/// 200 lab devices behind one OpenSSH bastion started with `MaxStartups 10:30:100` (it drops
/// unauthenticated connections at random past 10): every device logs in, through one
/// connection to it, within the site's `max_sessions` and `max_starts_per_s` (the defaults).
/// Only the version checks run, so the time is the logins'.
#[test]
fn two_hundred_devices_through_one_bastion_all_log_in() {
    if !available() {
        return;
    }
    let devices = 200;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let lab = rt.block_on(Lab::start(&[], devices)).expect("lab");
    let bastion = Bastion::start(Options {
        config: "MaxStartups 10:30:100\n",
        ..Options::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    copy_site(&lab.site_dir, &site);
    through(
        &site,
        &[bastion.entry("b1", "")],
        &[bastion.known_host()],
        |_| Some("b1".into()),
    );

    let (report, _, took) = run_site(
        &site,
        &[
            "--check",
            "eos.version.pinned",
            "--check",
            "fortigate.version.pinned",
        ],
    );

    assert!(
        report.devices_not_inspected.is_empty(),
        "{} of {devices} not inspected, the first: {:?}",
        report.devices_not_inspected.len(),
        report.devices_not_inspected.first()
    );
    assert_eq!(inspected(&report).len(), devices);
    assert_eq!(bastion.logins_and_channels(), (1, devices));
    // Paced at the default 10 logins a second: 200 starts span at least 19.9 s.
    assert!(took >= Duration::from_millis(19_900), "{took:?}");
    // The figure of the README ("Reaching devices"): the run's wall time and the bastion's CPU.
    eprintln!(
        "{devices} devices through one bastion, version checks only: {took:.1?} wall, the \
         bastion's sshd {:.2?} CPU",
        bastion.sshd.cpu()
    );
    rt.block_on(lab.shutdown());
}

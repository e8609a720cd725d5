//! Interop beyond russh: netmiko's `arista_eos` and `fortinet` drivers (paramiko underneath)
//! drive the lab like real devices. Needs python3 with netmiko (`pip install netmiko`); set
//! `PREMARKET_REQUIRE_NETMIKO=1` to make its absence a failure instead of a printed skip.

use std::process::Command;
use std::time::Duration;

use premarket::lab::{Fault, Lab, Scenario};

fn netmiko_available() -> Result<(), String> {
    let out = Command::new("python3")
        .args(["-c", "import netmiko; print(netmiko.__version__)"])
        .output()
        .map_err(|e| format!("python3 not runnable: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn netmiko_drives_the_lab() {
    if let Err(why) = netmiko_available() {
        if std::env::var("PREMARKET_REQUIRE_NETMIKO").as_deref() == Ok("1") {
            panic!("PREMARKET_REQUIRE_NETMIKO=1 but netmiko is unavailable: {why}");
        }
        eprintln!("SKIP netmiko_drives_the_lab: netmiko unavailable ({why}); pip install netmiko");
        return;
    }
    // healthy, then with the FortiGate's post-login banner that waits for `a`.
    for scenarios in [vec![], vec![Scenario::new(Fault::Banner)]] {
        let lab = Lab::start(&scenarios, 2).await.expect("lab");
        drive(&lab).await;
        lab.shutdown().await;
    }
}

async fn drive(lab: &Lab) {
    let fw = lab.device("fw1").unwrap().addr.port();
    let sw = lab.device("sw1").unwrap().addr.port();
    let secrets = lab.site_dir.join("secrets");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/netmiko/drive_lab.py");
    let mut child = tokio::process::Command::new("python3");
    child.arg(script).arg(fw.to_string()).arg(sw.to_string());
    for file in ["fw1.password", "sw1.password", "sw1.enable"] {
        child.arg(secrets.join(file));
    }
    let out = tokio::time::timeout(Duration::from_secs(120), child.output())
        .await
        .expect("netmiko finished")
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("ALL OK"),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );

    // netmiko's fortinet driver turns the pager off by changing the console config (and back
    // at cleanup): the lab records it, which is exactly why premarket never does this.
    let attempts: Vec<String> = lab
        .config_attempts()
        .into_iter()
        .map(|a| format!("{} {}", a.device, a.command))
        .collect();
    assert!(
        attempts.iter().any(|a| a == "fw1 set output standard"),
        "{attempts:?}"
    );
    assert!(
        attempts.iter().all(|a| a.starts_with("fw1 ")),
        "the switch was only read: {attempts:?}"
    );
}

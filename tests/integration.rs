//! The integration tests: one crate (one link of the library), a module per flow, as
//! ripgrep keeps its own. `cargo test --test integration MODULE::` runs one flow.
//! Shared helpers are the modules without tests of their own, declared first.
//!
//! Three flows are crates of their own. Two measure a process's peak memory, which any other test
//! in the same process would inflate: `output_stream` (its own resident set while an output never
//! ends) and `probe_stream` (a child's, which the kernel starts from its parent's). The third,
//! `probe_live`, compares microsecond timestamps on real frames, which this crate's other threads
//! would disturb on a two-core machine.

mod bastion_support;
mod chart_support;
mod common;
mod email_support;
#[path = "fuzz/harness.rs"]
mod harness;
mod lab_support;
mod notify_support;
mod parse_support;
mod previous_support;
#[path = "common/ssh.rs"]
mod ssh_common;

mod acks;
mod acks_lab;
mod adding_a_check;
mod archive_full;
mod archive_hostile;
mod archive_staged;
mod baseline_roles;
mod bastion_certificates;
mod bastion_openssh;
mod cli;
mod config_changes;
mod config_errors;
mod deadline;
mod demo;
mod demo_dataplane;
mod demo_handoff;
mod demo_market;
mod device_bug;
mod email_aiosmtpd;
mod email_smtp;
mod environment_file;
mod eos_checks;
mod eos_handoff;
mod eos_handoff_parse;
mod eos_market;
mod eos_parse;
mod eos_releases;
mod eos_samples;
mod eval_bounds;
mod explain;
mod fleet_defects;
mod fleet_lab;
mod fortigate_checks;
mod fortigate_dataplane;
mod fortigate_market;
mod fortigate_parse;
mod fortigate_releases;
mod fortigate_samples;
mod fuzz_regressions;
mod history;
mod history_chart;
mod hostile_files;
mod hostile_parse;
mod hostile_peers;
mod hostile_writes;
mod junit;
mod known_hosts_openssh;
mod lab_cli;
mod lab_load;
mod lab_netmiko;
mod lab_pipeline;
mod lab_ssh;
mod lab_trading;
mod metrics;
mod morning_loop;
mod notify;
mod notify_markup;
mod notify_outbox;
mod notify_transport;
mod oncall;
mod oncall_reads;
mod openssh_interop;
mod parse_props;
mod probe_chart;
mod probe_cli;
mod probe_firewall_cli;
mod probe_firewall_ssh;
mod probe_site;
mod probe_synthetic;
mod probe_trend;
mod readme;
mod redact_props;
mod references;
mod report_run;
mod rule_checks;
mod scenario_references;
mod secret_command;
mod secret_printed;
mod secrets_canary;
mod sessions_at_once;
mod site_checks;
mod site_start;
mod ssh_byte_path;
mod ssh_cli;
mod ssh_driver;
mod ssh_hostile_peer;
mod ssh_lab;
mod ssh_prompt_change;
mod ssh_safety;
mod ssh_samples;
mod ssh_screen_props;
mod stop_signal;
mod subjects;

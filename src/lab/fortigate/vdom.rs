//! What a FortiGate with VDOMs disabled prints for VDOM commands, where premarket could pass
//! in the lab and fail live. `diagnose sys vd list` (read-only) lists the root VDOM and the
//! hidden system ones (`vsys_ha`, `vsys_fgfm`), in the layout of a real capture quoted by
//! foset; `end` (or `edit`) at the top level is an unknown action, as a real capture shows.
//! `config vdom`, `config global` and `sudo ...` answer with the parse error (inferred). Under
//! the `vdom-dropped` scenario the box has VDOMs, and the listing shows [`DROPPED_VDOM`] too.

/// `end` at the top level (cgustave/netcontrol capture).
pub const TOP_LEVEL_END: &str = "8309: Unknown action 0\nCommand fail. Return code -1";

/// The operator's VDOM of a box with VDOMs (the `vdom-dropped` scenario), beside root.
pub const DROPPED_VDOM: &str = "trading";

/// `diagnose sys vd list` on a box without VDOMs, or with `trading` beside root.
pub fn vd_list(multi_vdom: bool) -> String {
    let mut vdoms = vec![
        (
            "root",
            0,
            212,
            88,
            4,
            "mode=standalone ha_state=work prio=0 vid=0",
        ),
        (
            "vsys_ha",
            1,
            7,
            21,
            2,
            "ha_flags={no-ses-sync,no-ses-flush,no-ha-stats} mode=standalone ha_state=work prio=0 vid=0",
        ),
        (
            "vsys_fgfm",
            2,
            3,
            14,
            0,
            "mode=standalone ha_state=work prio=0 vid=0",
        ),
    ];
    if multi_vdom {
        vdoms.push((
            DROPPED_VDOM,
            3,
            64,
            17,
            3,
            "mode=standalone ha_state=work prio=0 vid=0",
        ));
    }
    let mut out = String::from("system fib version=58\nlist virtual firewall info:\n");
    let count = vdoms.len();
    for (name, index, fib, use_count, rt, tail) in vdoms {
        out.push_str(&format!(
            "name={name}/{name} index={index} enabled fib_ver={fib} use={use_count} rt_num={rt} asym_rt=0 sip_helper=0, sip_nat_trace=1, mc_fwd=0, mc_ttl_nc=0, tpmc_sk_pl=0\n\
             ecmp=source-ip-based, ecmp6=source-ip-based asym_rt6=0 rt6_num=2 strict_src_check=0 dns_log=0 ses_num=4 ses6_num=0 pkt_num=1058377\n\
             \ttree_flag=1 tree6_flag=0 nataf=0 traffic_log=1 extended_traffic_log=0 svc_depth=6\n\
             \tlog_neigh=0, deny_tcp_with_icmp=0 ses_denied_traffic=no tcp_no_syn_check=0 central_nat=0 policy_mode_ngfw=0 block_land_attack=0 link_check_local_in=1\n\
             \tfw_session_hairpin=no  keep-PRP-trailer=0\n\
             \tipv4_rate=0, ipv6_rate=0, mcast6-PMTU=0, allow_linkdown_path=0\n\
             \tper_policy_disclaimer=0\n\
             \t{tail}\n"
        ));
    }
    out.push_str(&format!("vf_count={count} vfe_count=0\n"));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_root_and_the_system_vdoms() {
        let text = vd_list(false);
        assert!(text.contains("\nname=root/root index=0 enabled "));
        assert!(text.contains("\nname=vsys_ha/vsys_ha index=1 "));
        assert!(text.ends_with("vf_count=3 vfe_count=0\n"));
    }
}

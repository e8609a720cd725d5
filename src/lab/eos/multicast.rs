//! IGMP snooping on the feed VLAN: `show ip igmp snooping | json` (shape from ANTA's data),
//! and the querier and group tables. No real `| json` output of `show ip igmp snooping
//! querier` or `... groups` was found anywhere; the key names below are the lab's inference
//! in EOS's style (VLAN ids as string keys, long interface names) and are listed as
//! unconfirmed. `no-querier`: the exchange's querier is gone; without queries the receivers'
//! membership has aged out (the group is absent) and the VLAN floods the feed.

use super::super::scenario::Fault;
use super::super::topology::{self, MULTICAST_FEED};
use super::json::{J, obj};
use super::state::EosState;

fn querier_present(s: &EosState) -> bool {
    !s.faults.has(Fault::NoQuerier)
}

/// `show ip igmp snooping | json` (revision 1).
pub fn snooping_json(s: &EosState) -> String {
    let pruning = querier_present(s);
    let vlan = |pruning: bool| {
        obj! {
            "reportFlooding" => "disabled",
            "proxyActive" => false,
            "groupsOverrun" => false,
            "multicastRouterLearningMode" => "pim-dvmrp",
            "igmpSnoopingState" => "enabled",
            "pruningActive" => pruning,
            "maxGroups" => 65534u32,
            "immediateLeave" => "default",
            "floodingTraffic" => !pruning,
        }
    };
    obj! {
        "reportFlooding" => "disabled",
        "igmpSnoopingState" => "enabled",
        "vlans" => J::obj([
            ("1".to_string(), vlan(false)),
            (topology::FEED_VLAN.to_string(), vlan(pruning)),
        ]),
        "robustness" => 2u32,
        "immediateLeave" => "enabled",
        "reportFloodingSwitchPorts" => J::arr([]),
    }
    .render()
}

/// `show ip igmp snooping querier | json` (inferred keys).
pub fn querier_json(s: &EosState) -> String {
    let vlans = if querier_present(s) {
        J::obj([(
            topology::FEED_VLAN.to_string(),
            obj! {
                "querierAddress" => topology::ip(topology::FEED_QUERIER),
                "version" => "v2",
                "interface" => "Ethernet1",
            },
        )])
    } else {
        J::obj(Vec::<(String, J)>::new())
    };
    obj! { "vlans" => vlans }.render()
}

/// `show ip igmp snooping groups | json` (inferred keys).
pub fn groups_json(s: &EosState) -> String {
    let vlans = if querier_present(s) {
        J::obj([(
            topology::FEED_VLAN.to_string(),
            obj! {
                "groups" => J::obj([(
                    topology::ip(MULTICAST_FEED.dst),
                    obj! { "interfaces" => J::arr([J::from("Ethernet4")]) },
                )]),
            },
        )])
    } else {
        J::obj(Vec::<(String, J)>::new())
    };
    obj! { "vlans" => vlans }.render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn querier_and_group_come_and_go_together() {
        let healthy = EosState::new("sw1", 1, &Faults::default());
        let q: serde_json::Value = serde_json::from_str(&querier_json(&healthy)).unwrap();
        assert_eq!(q["vlans"]["100"]["querierAddress"], "10.100.0.1");
        let g: serde_json::Value = serde_json::from_str(&groups_json(&healthy)).unwrap();
        assert_eq!(
            g["vlans"]["100"]["groups"]["239.1.1.1"]["interfaces"][0],
            "Ethernet4"
        );
        let none = EosState::new("sw1", 1, &Faults::only(Fault::NoQuerier));
        assert!(querier_json(&none).contains("\"vlans\": {}"));
        assert!(groups_json(&none).contains("\"vlans\": {}"));
        let v: serde_json::Value = serde_json::from_str(&snooping_json(&none)).unwrap();
        assert_eq!(v["vlans"]["100"]["floodingTraffic"], true);
        assert_eq!(v["vlans"]["100"]["igmpSnoopingState"], "enabled");
    }
}

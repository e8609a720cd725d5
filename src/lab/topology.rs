//! The lab's fixed facts in one place: device names, platforms, versions, accounts and the
//! trading flows the emulated FortiGate carries. Baselines for the example site and
//! `premarket demo` align with these constants; change them here and nowhere else.

/// Login of every lab device (password and keyboard-interactive both accepted).
pub const USER: &str = "premarket";
/// Password of the emulated FortiGates (written to `secrets/<device>.password` in the site dir).
pub const FORTIGATE_PASSWORD: &str = "lab-fw-Passw0rd";
/// Password of the emulated switches.
pub const EOS_PASSWORD: &str = "lab-sw-Passw0rd";
/// The switches' `enable` secret (`Password:` after `enable`).
pub const EOS_ENABLE_SECRET: &str = "lab-enable-S3cret";

/// Each lab device's own secrets: the first device of a platform (fw1, sw1) has the constants
/// above, every other one its own (`lab-fw7-Passw0rd`), as on a floor where no two boxes share
/// a password: the run then knows a secret per device, as it does on a real fleet.
pub fn fortigate_password(index: usize) -> String {
    own(FORTIGATE_PASSWORD, index, || {
        format!("lab-fw{index}-Passw0rd")
    })
}

/// See [`fortigate_password`].
pub fn eos_password(index: usize) -> String {
    own(EOS_PASSWORD, index, || format!("lab-sw{index}-Passw0rd"))
}

/// See [`fortigate_password`].
pub fn eos_enable_secret(index: usize) -> String {
    own(EOS_ENABLE_SECRET, index, || {
        format!("lab-enable{index}-S3cret")
    })
}

fn own(first: &str, index: usize, other: impl FnOnce() -> String) -> String {
    if index <= 1 {
        first.to_string()
    } else {
        other()
    }
}

/// FortiGate identity in the healthy scenario (lab notes: FortiGate 201G, FortiOS 7.6.7).
pub const FORTIGATE_MODEL: &str = "FortiGate-201G";
pub const FORTIOS_VERSION: &str = "7.6.7";
/// Build number and date code shown by `get system status` (lab-invented, plausible).
pub const FORTIOS_BUILD: &str = "3652";
pub const FORTIOS_BUILD_DATE: &str = "260115";
/// What `version-drift` installs instead.
pub const FORTIOS_DRIFT_VERSION: &str = "7.6.5";
pub const FORTIOS_DRIFT_BUILD: &str = "3510";
pub const FORTIOS_DRIFT_BUILD_DATE: &str = "251104";

/// Switch identity in the healthy scenario.
pub const EOS_MODEL: &str = "DCS-7280SR3-48YC8";
pub const EOS_VERSION: &str = "4.31.6M";
/// What `version-drift` installs instead (not in the baseline's allowed list).
pub const EOS_DRIFT_VERSION: &str = "4.30.1F";

/// The virtual wire pair the trading path crosses (lab notes: x1 and x2).
pub const WIRE_PAIR: &str = "vwp-trading";
pub const PORT_IN: &str = "x1";
pub const PORT_OUT: &str = "x2";
/// Interface indexes as `dev=` prints them.
pub const PORT_IN_INDEX: u32 = 5;
pub const PORT_OUT_INDEX: u32 = 6;

/// A unicast trading flow through the firewall.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flow {
    pub name: &'static str,
    /// IP protocol number (17 UDP, 6 TCP).
    pub proto: u8,
    pub src: [u8; 4],
    pub sport: u16,
    pub dst: [u8; 4],
    pub dport: u16,
    /// The firewall policy (or multicast policy) that passes it.
    pub policy: u32,
    /// The custom service the policy names.
    pub service: &'static str,
    /// Whether traffic flows in the reply direction too (TCP orders do, a UDP feed does not).
    pub bidirectional: bool,
}

/// The market-data feed over unicast UDP (lab notes' measured flow): one direction only,
/// so the healthy session shows `ofld-O`.
pub const MARKET_DATA: Flow = Flow {
    name: "market-data",
    proto: 17,
    src: [10, 10, 1, 10],
    sport: 40000,
    dst: [10, 20, 1, 20],
    dport: 5000,
    policy: 1,
    service: "MD-UDP-5000",
    bidirectional: false,
};

/// The order entry connection over TCP: both directions carry traffic (`ofld-O ofld-R`).
pub const ORDERS: Flow = Flow {
    name: "orders",
    proto: 6,
    src: [10, 10, 1, 11],
    sport: 41000,
    dst: [10, 20, 1, 21],
    dport: 9001,
    policy: 2,
    service: "ORDERS-TCP-9001",
    bidirectional: true,
};

/// The multicast market-data feed: source, group and ports, passed by multicast policy 1.
pub const MULTICAST_FEED: Flow = Flow {
    name: "multicast-feed",
    proto: 17,
    src: [10, 10, 1, 10],
    sport: 30001,
    dst: [239, 1, 1, 1],
    dport: 30001,
    policy: 1,
    service: "",
    bidirectional: false,
};

/// `udp-idle-timer` (seconds) of the market-data service in the healthy scenario.
pub const MARKET_DATA_UDP_IDLE: u32 = 3600;
/// The global `udp-idle-timer` (FortiOS default).
pub const GLOBAL_UDP_IDLE: u32 = 180;

/// Dotted form of an address.
pub fn ip(a: [u8; 4]) -> String {
    format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
}

/// Name of the `index`-th (1-based) device of a platform: `fw1`, `sw2`, ...
pub fn device_name(platform: premarket_core::Platform, index: usize) -> String {
    match platform {
        premarket_core::Platform::Fortigate => format!("fw{index}"),
        _ => format!("sw{index}"),
    }
}

/// The switch's ports on the trading path (example site: `sw1`), in the order the feed crosses
/// them. Ethernet5-8 exist but are `notconnect`; Management1 is out of band.
pub const EOS_TRADING_PORTS: [(&str, &str); 4] = [
    ("Ethernet1", "exchange handoff (feed in)"),
    ("Ethernet2", "fw1 x1 (to the firewall)"),
    ("Ethernet3", "fw1 x2 (from the firewall)"),
    ("Ethernet4", "trading servers"),
];
/// Ports that exist on the switch but are not cabled.
pub const EOS_SPARE_PORTS: [&str; 4] = ["Ethernet5", "Ethernet6", "Ethernet7", "Ethernet8"];
/// The exchange's second handoff: the B side of the market-data feed (`eos.multicast.flowing`)
/// arrives here, the A side on Ethernet1.
pub const EOS_FEED_B_PORT: (&str, &str) = ("Ethernet9", "exchange handoff B (feed B in)");
/// The B side's group (the A side's is the multicast feed's, 239.1.1.1).
pub const FEED_B_GROUP: [u8; 4] = [239, 2, 1, 1];
/// The VLAN the market-data feed arrives in (IGMP snooping, querier, joined group).
pub const FEED_VLAN: u16 = 100;
/// The exchange's IGMP querier on the feed VLAN, heard on Ethernet1.
pub const FEED_QUERIER: [u8; 4] = [10, 100, 0, 1];
/// The PTP grandmaster the switch follows (its `gmClockIdentity` when locked).
pub const PTP_GRANDMASTER: &str = "0xec:46:70:ff:fe:00:ff:a8";
/// The switch's own PTP clock identity (also its `gmClockIdentity` when it has lost the GM).
pub const PTP_OWN_CLOCK: &str = "0x00:1c:73:ff:ff:0a:00:01";
/// The NTP server both devices synchronise to, and a second one they keep as a candidate.
pub const NTP_SERVER: [u8; 4] = [10, 0, 0, 1];
pub const NTP_SERVER_2: [u8; 4] = [10, 0, 0, 2];
/// The stratum of the NTP servers (the devices themselves are one stratum further down).
pub const NTP_SERVER_STRATUM: u8 = 2;
/// Uptime of a healthy switch and firewall at the lab's epoch, in whole days (plus the time
/// since, see `clock::boot_time`).
pub const EOS_UPTIME_DAYS: u64 = 12;
pub const FORTIGATE_UPTIME_DAYS: u64 = 30;
/// Uptime after the `rebooted` scenario's power loss, when the lab starts.
pub const EOS_REBOOTED_UPTIME_S: u64 = 35;
pub const FORTIGATE_REBOOTED_UPTIME_S: u64 = 60;

/// One of the switch's BGP peers on the hand-off (the example baseline's `bgp_peers`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BgpPeer {
    pub name: &'static str,
    pub vrf: &'static str,
    pub address: [u8; 4],
    pub asn: u32,
    /// The hand-off port its session runs over (BFD and PIM beside it), if a direct one.
    pub port: Option<&'static str>,
    /// Prefixes it announces (all accepted) on a healthy day.
    pub prefixes: u64,
}

/// The exchange's two hand-offs (one per feed side) and the broker's order-entry session.
pub const EOS_BGP_PEERS: [BgpPeer; 3] = [
    BgpPeer {
        name: "exchange-a",
        vrf: "default",
        address: [10, 1, 1, 1],
        asn: 65010,
        port: Some("Ethernet1"),
        prefixes: 12,
    },
    BgpPeer {
        name: "exchange-b",
        vrf: "default",
        address: [10, 1, 9, 1],
        asn: 65011,
        port: Some("Ethernet9"),
        prefixes: 12,
    },
    BgpPeer {
        name: "broker",
        vrf: "ORDERS",
        address: [10, 30, 0, 1],
        asn: 65030,
        port: None,
        prefixes: 4,
    },
];
/// The switch's own AS and router id.
pub const EOS_ASN: u32 = 65001;
pub const EOS_ROUTER_ID: [u8; 4] = [10, 0, 255, 11];
/// The source of the feed's B side (the A side's is the multicast feed's, 10.10.1.10).
pub const FEED_B_SOURCE: [u8; 4] = [10, 10, 2, 10];
/// The carrier routers at the far end of the hand-offs, as LLDP names them: side A arrives
/// from carrier A, side B from carrier B.
pub const CARRIER_A: (&str, &str) = ("carrier-a-pe1", "xe-0/0/1");
pub const CARRIER_B: (&str, &str) = ("carrier-b-pe1", "xe-0/0/1");

//! `diagnose npu np7lite port-list` (FortiGate 200G/201G) and `diagnose npu np7 port-list`
//! (NP7 boxes): which front-panel interfaces the network processor serves.
//!
//! The NP7 form is documented (4200F example, Hardware Acceleration guide 46734):
//! ```text
//! Front Panel Port:
//! Name   Max_speed(Mbps) Dflt_speed(Mbps) NP_group        Switch_id SW_port_id SW_port_name
//! ------ --------------- ---------------  --------------- --------- ---------- ------------
//! port1  25000           10000            NP#0-3          0         37         xe10
//! ```
//! followed by an `NP Port:` table. No NP7Lite example is published, so the table is found by
//! its header words (`Name` first, an `NP...` or `Max_speed` column) and unknown extra columns
//! are accepted; the 400G-class table has no `NP_group` column at all (Hardware Acceleration
//! 7.6.6, 400G page). The NP6 generation prints another layout (`Chip XAUI Ports ...`,
//! `super::npu_port_list_np6`). Output without either header is an error, never an empty
//! "no port is served".

use super::kv::counter;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{Availability, ParseError, Query, Raw};

use super::model;
use super::npu_port_list_np6 as np6;
pub use super::npu_ports::{Np, NpuPort, NpuPortList};

/// `diagnose npu np7lite port-list` (200G/201G) or `diagnose npu np7 port-list` (NP7 boxes).
pub struct DiagNpuPortList(pub &'static str);

impl Query for DiagNpuPortList {
    const KIND: &'static str = "fortigate.diagnose-npu-port-list";
    type Fact = NpuPortList;
    fn command(&self) -> Command {
        Command::new(self.0)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NpuPortList, ParseError> {
        parse(raw.text()?)
    }
    /// Each NP generation's command exists on its models only (`model.rs`).
    fn available_on(&self) -> Option<Availability> {
        Np::ALL
            .into_iter()
            .find(|np| np.port_list().0 == self.0)
            .map(Np::availability)
    }
}

impl DiagNpuPortList {
    pub const NP7LITE: &'static str = "diagnose npu np7lite port-list";
    pub const NP7: &'static str = "diagnose npu np7 port-list";
    pub const NP6: &'static str = "diagnose npu np6 port-list";
    pub const NP6LITE: &'static str = "diagnose npu np6lite port-list";
    pub const NP6XLITE: &'static str = "diagnose npu np6xlite port-list";
}

impl Np {
    /// The query listing the ports this NP serves.
    pub fn port_list(self) -> DiagNpuPortList {
        DiagNpuPortList(match self {
            Np::Np7 => DiagNpuPortList::NP7,
            Np::Np7lite => DiagNpuPortList::NP7LITE,
            Np::Np6 => DiagNpuPortList::NP6,
            Np::Np6lite => DiagNpuPortList::NP6LITE,
            Np::Np6xlite => DiagNpuPortList::NP6XLITE,
        })
    }

    /// On which models its port list (and its other diagnose commands) exists.
    pub(super) fn availability(self) -> Availability {
        match self {
            Np::Np7 => model::PORT_LIST_NP7,
            Np::Np7lite => model::PORT_LIST_NP7LITE,
            Np::Np6 => model::PORT_LIST_NP6,
            Np::Np6lite => model::PORT_LIST_NP6LITE,
            Np::Np6xlite => model::PORT_LIST_NP6XLITE,
        }
    }
}

pub fn parse(raw: &str) -> Result<NpuPortList, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    if let Some(start) = lines.iter().position(|l| np6::is_header(l)) {
        return np6::parse(&lines, start);
    }
    let Some(start) = lines.iter().position(|l| is_header(l)) else {
        return Err(ParseError::new(
            "no port table header (`Name Max_speed ...` or `Chip XAUI ...`): not an NPU port list",
            raw,
        ));
    };
    let columns: Vec<&str> = lines[start].split_whitespace().collect();
    let find = |prefix: &str| columns.iter().position(|c| c.starts_with(prefix));
    // The 400G-class table has no NP_group column (Sw_Trunk_Id ... GroupID ... instead): a
    // listed front-panel port is on the NP.
    let group = find("NP");
    let least = group.map_or(2, |g| columns.len().min(g + 1));
    let (max, default) = (find("Max_speed"), find("Dflt_speed"));
    let mut list = NpuPortList::default();
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let at = |e: String| ParseError::at_line(e, &joined(&lines), i);
        let line = line.trim();
        if line.chars().all(|c| c == '-' || c.is_whitespace()) {
            continue;
        }
        // The next table (`NP Port:`) ends the front-panel one.
        if line.ends_with(':') {
            break;
        }
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.len() < least || cells.len() > columns.len() {
            return Err(at(format!(
                "a row with {} cells under a {}-column header: {}",
                cells.len(),
                columns.len(),
                quote(line)
            )));
        }
        let speed = |column: Option<usize>| {
            column
                .and_then(|c| cells.get(c))
                .map(|v| counter(v).map_err(|e| at(e.to_string())))
                .transpose()
        };
        let port = NpuPort {
            np_group: group
                .and_then(|g| cells.get(g))
                .map_or_else(|| FRONT_PANEL.to_string(), |g| g.to_string()),
            max_speed_mbps: speed(max)?,
            default_speed_mbps: speed(default)?,
            cross_chip: None,
        };
        match list.ports.get(cells[0]) {
            Some(old) if *old != port => {
                return Err(at(format!(
                    "{} is listed twice with different values",
                    quote(cells[0])
                )));
            }
            Some(_) => {}
            None => {
                list.ports.insert(cells[0].to_string(), port);
            }
        }
    }
    if list.ports.is_empty() {
        return Err(ParseError::new(
            "the port table lists no port (output cut?)",
            &joined(&lines),
        ));
    }
    Ok(list)
}

/// What a port's NP is called when the table has no `NP_group` column.
const FRONT_PANEL: &str = "front panel";

/// `Name   Max_speed(Mbps) Dflt_speed(Mbps) NP_group ...` (4200F, 600F, 200G) or `Name
/// Max_speed(Mbps) Dflt_speed(Mbps) Sw_Trunk_Id ... GroupID ...` (400G, no `NP_group`).
fn is_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("Name") && words.any(|w| w.starts_with("NP") || w.starts_with("Max_speed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NP7LITE: &str = "fw1 # diagnose npu np7lite port-list\nFront Panel Port:\nName   Max_speed(Mbps) Dflt_speed(Mbps) NP_group        Switch_id SW_port_id SW_port_name \n------ --------------- ---------------  --------------- --------- ---------- ------------ \nx1     10000           10000            NP#0            0         17         xe1          \nx2     10000           10000            NP#0            0         18         xe2          \nport1  1000            1000             NP#0            0         1          ge1          \n\nNP Port:\nName   Switch_id SW_port_id SW_port_name\n------ --------- ---------- ------------\nnp0_0  0         30         xe30\nfw1 # ";

    #[test]
    fn front_panel_table() {
        let list = parse(NP7LITE).unwrap();
        assert_eq!(list.ports.len(), 3);
        assert_eq!(list.ports["x1"].np_group, "NP#0");
        assert_eq!(list.ports["x1"].max_speed_mbps, Some(10_000));
        assert!(!list.ports.contains_key("np0_0"));
        let extra = NP7LITE
            .replace("SW_port_name \n", "SW_port_name Extra\n")
            .replace("xe1          \n", "xe1 z\n");
        assert_eq!(parse(&extra).unwrap().ports["x1"].np_group, "NP#0");
    }

    #[test]
    fn damage_is_an_error() {
        for bad in [
            NP7LITE.replace("10000           10000            NP#0            0         17", "-5 10000 NP#0 0 17"),
            NP7LITE.replace("x2     10000", "x1     1000"),
            NP7LITE.replace("Name   Max_speed", "Port   Max_speed"),
            "fw1 # diagnose npu np7lite port-list\nFront Panel Port:\nName Max_speed(Mbps) Dflt_speed(Mbps) NP_group\n".to_string(),
            "command parse error before 'np7lite'\nCommand fail. Return code -61\n".to_string(),
            "x1 10000 10000 NP#0\n".to_string(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}

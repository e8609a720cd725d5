//! `diagnose npu np6 port-list` (and the `np6lite`/`np6xlite` forms): the NP6 generation's
//! port table, a layout of its own (Hardware Acceleration guide 6.4-7.4, "Viewing your
//! FortiGate NP6, NP6XLite, or NP6Lite processor configuration"):
//! ```text
//! Chip   XAUI Ports            Max   Cross-chip
//!                              Speed offloading
//! ------ ---- -------          ----- ----------
//! np6_0  0    port1            10G   Yes
//!        1    port2            10G   Yes
//!        3
//!        0-3  port29           25G   Yes
//! ------ ---- -------          ----- ----------
//! np6_1  0    port4            10G   Yes
//! ```
//! A chip's name starts its first row only (or stands alone on its line); an XAUI lane with
//! no port prints its number alone. `Cross-chip offloading` (`Yes`/`No`, any case) is kept per
//! port: on a model without it, a session entering on one chip and leaving on another is not
//! offloaded. The NP6Lite and NP6XLite forms are documented as the same command family; their
//! exact rows are not published (chip names `np6lite_0`, `np6xlite_0` inferred), so any chip
//! word starting `np6` is accepted and anything else in a row is an error.

use std::borrow::Cow;

use super::npu_ports::{NpuPort, NpuPortList};
use super::text::joined;
use premarket_parse::ParseError;
use premarket_parse::text::quote;

/// `Chip   XAUI Ports ...`
pub(super) fn is_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("Chip") && words.next() == Some("XAUI")
}

/// The table from its header line `start` on.
pub(super) fn parse(lines: &[Cow<'_, str>], start: usize) -> Result<NpuPortList, ParseError> {
    let mut list = NpuPortList::default();
    let mut chip: Option<String> = None;
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let at = |e: String| ParseError::at_line(e, &joined(lines), i);
        let mut cells: Vec<&str> = line.split_whitespace().collect();
        if cells.is_empty() || cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            continue;
        }
        // The header's second line.
        if cells == ["Speed", "offloading"] {
            continue;
        }
        if cells[0].starts_with("np6") {
            chip = Some(cells.remove(0).to_string());
            if cells.is_empty() {
                continue;
            }
        }
        let Some(chip) = chip.as_ref() else {
            return Err(at(format!(
                "a row before any chip name: {}",
                quote(line.trim())
            )));
        };
        if !is_lanes(cells[0]) {
            return Err(at(format!(
                "{} is not an XAUI lane number: {}",
                quote(cells[0]),
                quote(line.trim())
            )));
        }
        match cells[1..] {
            [] => {}
            [port, speed, cross] => {
                let cross_chip = match cross.to_ascii_lowercase().as_str() {
                    "yes" => true,
                    "no" => false,
                    _ => {
                        return Err(at(format!(
                            "cross-chip offloading {} is not Yes or No",
                            quote(cross)
                        )));
                    }
                };
                let speed = speed_mbps(speed).map_err(|e| at(e.to_string()))?;
                let entry = NpuPort {
                    np_group: chip.clone(),
                    max_speed_mbps: Some(speed),
                    default_speed_mbps: None,
                    cross_chip: Some(cross_chip),
                };
                match list.ports.get(port) {
                    Some(old) if *old != entry => {
                        return Err(at(format!(
                            "{} is listed twice with different values",
                            quote(port)
                        )));
                    }
                    _ => {
                        list.ports.insert(port.to_string(), entry);
                    }
                }
            }
            _ => {
                return Err(at(format!(
                    "a row of {} cells, not lane, port, speed, cross-chip: {}",
                    cells.len(),
                    quote(line.trim())
                )));
            }
        }
    }
    if list.ports.is_empty() {
        return Err(ParseError::new(
            "the NP6 port table lists no port (output cut?)",
            &joined(lines),
        ));
    }
    Ok(list)
}

/// `0`, `3`, `0-3`.
fn is_lanes(cell: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    match cell.split_once('-') {
        Some((a, b)) => digits(a) && digits(b),
        None => digits(cell),
    }
}

/// `10G` -> 10000, `100M` -> 100.
fn speed_mbps(cell: &str) -> Result<u64, SpeedError> {
    // By suffix, not by byte position: a cell ending in a multibyte character has no unit.
    let (number, factor) = match (cell.strip_suffix('G'), cell.strip_suffix('M')) {
        (Some(number), _) => (number, 1000),
        (_, Some(number)) => (number, 1),
        _ => return Err(SpeedError::Unit(cell.to_string())),
    };
    number
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0 && *n <= 1000)
        .map(|n| n * factor)
        .ok_or_else(|| SpeedError::Number(cell.to_string()))
}

/// A speed cell that does not read, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum SpeedError {
    #[error("speed {} has no G or M unit", quote(.0))]
    Unit(String),
    #[error("speed {} is not a number of G or M", quote(.0))]
    Number(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speed_cells() {
        assert_eq!(speed_mbps("10G"), Ok(10_000));
        assert_eq!(speed_mbps("1000M"), Ok(1000));
        // Found by the fuzzer: a last character of several bytes is no unit, not a panic.
        assert_eq!(
            speed_mbps("1G\u{fffd}"),
            Err(SpeedError::Unit("1G\u{fffd}".into()))
        );
        assert_eq!(speed_mbps(""), Err(SpeedError::Unit(String::new())));
        assert_eq!(speed_mbps("G"), Err(SpeedError::Number("G".into())));
        assert_eq!(speed_mbps("0G"), Err(SpeedError::Number("0G".into())));
    }
}

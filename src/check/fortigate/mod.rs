//! Checks of FortiGate firewalls.

use super::Check;
use crate::platform::fortigate::Expect;

pub static CHECKS: &[&dyn Check<Expect>] = &[];

//! `diagnose sys ha checksum cluster`, in the 7.x shape of the shared sample (a banner per
//! member, `is_manage_primary()`, `debugzone` and `checksum` tables `global`, `root`, `all`): a
//! standalone box prints its own block; a cluster both members'. Under `ha-mismatch` the
//! secondary's `root` differs, and so `all` (checksums are cumulative, KB 193061).

use super::super::scenario::Fault;
use super::state::FgState;

const GLOBAL: &str = "2e b4 fb 43 fb 7a 98 7f db ed c0 47 5b 35 e4 1f";
const ROOT: &str = "bb 66 88 7d df ab 27 f0 b3 a8 a7 72 f4 a0 f3 2d";
const ALL: &str = "c9 4b 3b e2 1b e6 25 89 df d2 95 31 ba 8b 47 bb";
const ROOT_DIFFERS: &str = "d8 f5 57 46 f0 b8 45 1e 00 be 45 92 a2 07 14 90";
const ALL_DIFFERS: &str = "a7 8d cc c7 32 b5 81 a2 55 49 52 21 57 f9 3c 3b";

pub fn cluster(s: &FgState) -> String {
    let mut out = block(&s.serial, true, (ROOT, ALL));
    if s.ha_cluster() {
        let peer = format!("{}9", &s.serial[..s.serial.len() - 1]);
        let sums = if s.faults.has(Fault::HaMismatch) {
            (ROOT_DIFFERS, ALL_DIFFERS)
        } else {
            (ROOT, ALL)
        };
        out.push_str(&block(&peer, false, sums));
    }
    out
}

fn block(serial: &str, primary: bool, (root, all): (&str, &str)) -> String {
    let flag = u8::from(primary);
    let tables = format!("global: {GLOBAL} \nroot: {root} \nall: {all} \n");
    format!(
        "================== {serial} ==================\n\n\
         is_manage_primary()={flag}, is_root_primary()={flag}\n\
         debugzone\n{tables}\nchecksum\n{tables}\n"
    )
}

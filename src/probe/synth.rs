//! A deterministic synthetic capture shaped on the lab figures, for tests and benchmarks
//! (`premarket probe synth`, hidden).
//!
//! Request i leaves at i x interval plus N(0, 2 us) of sender jitter; its before copy is
//! stamped on arrival, its after copy `calibration + firewall latency` later; every stamp is
//! rounded down to the ExaNIC's 6.206 ns tick. Profiles:
//! - offloaded: the first 2 packets of the session U(39, 49) us, then N(4.10, 0.015) us
//!   clipped to [4.05, 4.25];
//! - cpu: 36 % U(8, 10) us, the rest by inverse CDF through (0, 10), (0.219, 18.5),
//!   (0.984, 47.94), (1, 49) us: median ~18.5 us, p99 ~47.9 us;
//! - new-session: a new source port per packet, each packet U(12, 30.58) us (median 21.29 us);
//!   ports wrap after 40 000 requests, so keep the count below that for this profile;
//! - pause: offloaded, with a 200 s pause half way; the 2 packets after it slow again;
//! - loss: offloaded, 0.5 % of the after copies dropped;
//! - dac: the firewall replaced by a cable: no firewall latency at all.
//!
//! No RNG crate: a xorshift64* keeps the output identical across versions.

use std::io::Write;

use super::frame::{self, FrameSpec, Payload};
use super::pcap;
use super::units::{Nanos, Port, Vlan};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Profile {
    Offloaded,
    Cpu,
    NewSession,
    Pause,
    Loss,
    Dac,
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct Spec {
    pub profile: Profile,
    pub count: usize,
    pub seed: u64,
    pub interval: Nanos,
    /// Added to every firewall latency (the lab: 412 + 24.8 ns); 0 in `dac`, where the DAC's
    /// own difference is this value.
    pub calibration_ns: f64,
    pub before: Vlan,
    pub after: Vlan,
    /// Time stamp unit in picoseconds (6206: the ExaNIC's 161.1328 MHz counter).
    pub tick_ps: u64,
}

impl Spec {
    pub fn lab(profile: Profile, count: usize, seed: u64) -> Self {
        Spec {
            profile,
            count,
            seed,
            interval: Nanos(1_000_000),
            calibration_ns: 436.8,
            before: Vlan(10),
            after: Vlan(20),
            tick_ps: 6206,
        }
    }
}

/// What was generated, to compare the analysis with.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// Firewall latency of every request that came back, in send order.
    pub latencies: Vec<Nanos>,
    pub dropped: usize,
    pub frames: usize,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn normal(&mut self, mean: f64, sd: f64) -> f64 {
        let u1 = self.unit().max(1e-300);
        let u2 = self.unit();
        mean + sd * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

fn cpu_latency_us(rng: &mut Rng) -> f64 {
    if rng.unit() < 0.36 {
        return rng.uniform(8.0, 10.0);
    }
    let u = rng.unit();
    let points = [(0.0, 10.0), (0.219, 18.5), (0.984, 47.94), (1.0, 49.0)];
    for w in points.windows(2) {
        let ((u0, v0), (u1, v1)) = (w[0], w[1]);
        if u <= u1 {
            return v0 + (v1 - v0) * (u - u0) / (u1 - u0);
        }
    }
    49.0
}

/// Writes the capture as little-endian nanosecond pcap to `out` and returns the truth.
pub fn generate(spec: &Spec, out: impl Write) -> std::io::Result<Truth> {
    let mut rng = Rng(spec.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut writer = pcap::Writer::nano(std::io::BufWriter::new(out))?;
    let mut truth = Truth {
        latencies: Vec::with_capacity(spec.count),
        ..Truth::default()
    };
    let start_ps: i128 = 1_764_000_000_000_000_000_000;
    let quantize = |ps: i128| {
        Nanos(((ps / i128::from(spec.tick_ps)) * i128::from(spec.tick_ps) / 1000) as i64)
    };
    let pause_at = spec.count / 2;
    let mut since_session = 0usize;
    let mut template = FrameSpec::default();
    for i in 0..spec.count {
        let mut send_ps = start_ps + i128::from(spec.interval.0) * 1000 * i as i128;
        send_ps += (rng.normal(0.0, 2_000.0) * 1000.0) as i128;
        if spec.profile == Profile::Pause && i >= pause_at {
            send_ps += 200_000_000_000_000;
            if i == pause_at {
                since_session = 0;
            }
        }
        if spec.profile == Profile::NewSession {
            template.sport = Port(20_000 + (i % 40_000) as u16);
            since_session = 0;
        }
        let slow_start = since_session < 2;
        since_session += 1;
        let fw_us = match spec.profile {
            Profile::Dac => 0.0,
            Profile::Cpu => cpu_latency_us(&mut rng),
            Profile::NewSession => rng.uniform(12.0, 30.58),
            Profile::Offloaded | Profile::Pause | Profile::Loss if slow_start => {
                rng.uniform(39.0, 49.0)
            }
            Profile::Offloaded | Profile::Pause | Profile::Loss => {
                rng.normal(4.10, 0.015).clamp(4.05, 4.25)
            }
        };
        let fw_ps = (fw_us * 1e6).round() as i128;
        let cal_ps = (spec.calibration_ns * 1000.0).round() as i128;
        let mut f = template;
        let payload = Payload {
            run: 1,
            round: 0,
            flags: 0,
            seq: i as u64,
        };
        f.vlans = [Some(spec.before), None];
        let before = frame::build(&f, &payload);
        f.vlans = [Some(spec.after), None];
        let after = frame::build(&f, &payload);
        writer.write(quantize(send_ps), &before)?;
        truth.frames += 1;
        if spec.profile == Profile::Loss && rng.unit() < 0.005 {
            truth.dropped += 1;
            continue;
        }
        writer.write(quantize(send_ps + cal_ps + fw_ps), &after)?;
        truth.frames += 1;
        truth
            .latencies
            .push(Nanos((fw_ps as f64 / 1000.0).round() as i64));
    }
    writer.into_inner().flush()?;
    Ok(truth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_is_deterministic() {
        let spec = Spec::lab(Profile::Cpu, 200, 7);
        let mut a = Vec::new();
        let mut b = Vec::new();
        generate(&spec, &mut a).unwrap();
        generate(&spec, &mut b).unwrap();
        assert_eq!(a, b);
        let mut c = Vec::new();
        generate(&Spec::lab(Profile::Cpu, 200, 8), &mut c).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn cpu_profile_has_the_lab_shape() {
        let mut rng = Rng(99);
        let mut v: Vec<f64> = (0..20_000).map(|_| cpu_latency_us(&mut rng)).collect();
        v.sort_by(f64::total_cmp);
        let median = v[9_999];
        let p99 = v[19_799];
        assert!((median - 18.5).abs() < 0.5, "median {median}");
        assert!((p99 - 47.9).abs() < 0.5, "p99 {p99}");
        let share = v.iter().filter(|x| **x < 10.0).count() as f64 / v.len() as f64;
        assert!((share - 0.36).abs() < 0.02, "share {share}");
    }
}

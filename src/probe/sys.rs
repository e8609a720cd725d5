//! Thin wrappers over the Linux calls the live probe needs: AF_PACKET sockets, promiscuous
//! membership, `SO_TIMESTAMPING`, `PACKET_AUXDATA`, the hardware time stamp ioctl, drop
//! statistics, and an absolute-time sleep. Every `unsafe` block is one system call with
//! buffers owned by the caller; the decoding of what comes back is in [`super::cmsg`].

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use super::cmsg::{self, Control};
use super::units::Nanos;

const ETH_P_ALL: u16 = 0x0003;
const SOL_PACKET: libc::c_int = 263;
const PACKET_ADD_MEMBERSHIP: libc::c_int = 1;
const PACKET_MR_PROMISC: u16 = 1;
const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_AUXDATA: libc::c_int = 8;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
pub const PACKET_OUTGOING: u8 = 4;
const SO_TIMESTAMPING: libc::c_int = 37;
const SIOCGHWTSTAMP: libc::c_ulong = 0x89b1;
const SIOCSHWTSTAMP: libc::c_ulong = 0x89b0;
const HWTSTAMP_FILTER_NONE: i32 = 0;
const HWTSTAMP_FILTER_ALL: i32 = 1;

pub const TS_TX_SOFTWARE: u32 = 1 << 1;
pub const TS_RX_HARDWARE: u32 = 1 << 2;
pub const TS_RX_SOFTWARE: u32 = 1 << 3;
pub const TS_SOFTWARE: u32 = 1 << 4;
pub const TS_RAW_HARDWARE: u32 = 1 << 6;
pub const TS_OPT_ID: u32 = 1 << 7;
pub const TS_OPT_TSONLY: u32 = 1 << 11;

#[repr(C)]
struct PacketMreq {
    mr_ifindex: libc::c_int,
    mr_type: u16,
    mr_alen: u16,
    mr_address: [u8; 8],
}

#[repr(C)]
#[derive(Default)]
struct TpacketStats {
    tp_packets: u32,
    tp_drops: u32,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HwtstampConfig {
    pub flags: i32,
    pub tx_type: i32,
    pub rx_filter: i32,
}

#[repr(C)]
struct IfreqData {
    name: [u8; 16],
    data: *mut libc::c_void,
    pad: [u8; 16],
}

fn check(rc: libc::c_int) -> io::Result<libc::c_int> {
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// The index of a network interface by name.
pub fn ifindex(name: &str) -> io::Result<i32> {
    let c = CString::new(name)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "interface name has a NUL"))?;
    // SAFETY: `c` is a valid NUL-terminated string for the duration of the call.
    let index = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if index == 0 {
        return Err(io::Error::new(
            io::ErrorKind::NotFound,
            format!("no interface named {name}: {}", io::Error::last_os_error()),
        ));
    }
    i32::try_from(index).map_err(|_| io::Error::other("interface index out of range"))
}

/// One received frame.
#[derive(Clone, Copy, Debug)]
pub struct Received {
    pub len: usize,
    pub pkttype: u8,
    pub control: Control,
}

/// An AF_PACKET raw socket bound to one interface.
pub struct PacketSocket {
    fd: OwnedFd,
    pub ifindex: i32,
    pub name: String,
}

impl PacketSocket {
    /// Opens `socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)` and binds it to `name`.
    pub fn open(name: &str) -> io::Result<Self> {
        let index = ifindex(name)?;
        // SAFETY: plain socket(2) call; the descriptor is owned right after.
        let raw = check(unsafe {
            libc::socket(
                libc::AF_PACKET,
                libc::SOCK_RAW,
                i32::from(ETH_P_ALL.to_be()),
            )
        })
        .map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("AF_PACKET socket (needs root or CAP_NET_RAW): {e}"),
            )
        })?;
        // SAFETY: `raw` is a fresh descriptor nobody else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // SAFETY: sockaddr_ll is plain old data; zeroed is a valid value.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = ETH_P_ALL.to_be();
        addr.sll_ifindex = index;
        // SAFETY: `addr` lives for the call and its size is passed.
        check(unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&raw const addr).cast(),
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        Ok(PacketSocket {
            fd,
            ifindex: index,
            name: name.to_string(),
        })
    }

    fn setsockopt<T>(&self, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
        // SAFETY: `value` is a live reference whose size is passed.
        check(unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                level,
                name,
                (value as *const T).cast(),
                std::mem::size_of::<T>() as libc::socklen_t,
            )
        })
        .map(|_| ())
    }

    /// Receive frames for any destination MAC (the probe's destination is one nobody owns).
    pub fn promiscuous(&self) -> io::Result<()> {
        let mreq = PacketMreq {
            mr_ifindex: self.ifindex,
            mr_type: PACKET_MR_PROMISC,
            mr_alen: 0,
            mr_address: [0; 8],
        };
        self.setsockopt(SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mreq)
    }

    /// Deliver the VLAN the kernel stripped, as `PACKET_AUXDATA`.
    pub fn auxdata(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_AUXDATA, &1i32)
    }

    /// Do not see our own transmissions (kernel 4.20+; callers also skip `PACKET_OUTGOING`).
    pub fn ignore_outgoing(&self) -> io::Result<()> {
        self.setsockopt(SOL_PACKET, PACKET_IGNORE_OUTGOING, &1i32)
    }

    pub fn timestamping(&self, flags: u32) -> io::Result<()> {
        self.setsockopt(libc::SOL_SOCKET, SO_TIMESTAMPING, &flags)
    }

    pub fn receive_buffer(&self, bytes: i32) -> io::Result<()> {
        self.setsockopt(libc::SOL_SOCKET, libc::SO_RCVBUF, &bytes)
    }

    /// Blocks in `recv` at most this long.
    pub fn receive_timeout(&self, timeout: std::time::Duration) -> io::Result<()> {
        let tv = libc::timeval {
            tv_sec: timeout.as_secs() as libc::time_t,
            tv_usec: timeout.subsec_micros() as libc::suseconds_t,
        };
        self.setsockopt(libc::SOL_SOCKET, libc::SO_RCVTIMEO, &tv)
    }

    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: `frame` is a live slice whose length is passed.
        let n = unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr().cast(), frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// `recvmsg` with a control buffer; `flags` e.g. `MSG_DONTWAIT` or `MSG_ERRQUEUE`.
    pub fn receive(&self, buf: &mut [u8], flags: libc::c_int) -> io::Result<Received> {
        let mut control = [0u64; 64];
        // SAFETY: sockaddr_ll is plain old data.
        let mut from: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        let mut iov = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        // SAFETY: msghdr is plain old data; the pointers set below outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_name = (&raw mut from).cast();
        msg.msg_namelen = std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t;
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = std::mem::size_of_val(&control) as _;
        // SAFETY: every buffer in `msg` is live and sized.
        let n = unsafe { libc::recvmsg(self.fd.as_raw_fd(), &raw mut msg, flags) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        let clen = (msg.msg_controllen as usize).min(std::mem::size_of_val(&control));
        // SAFETY: reinterpreting the u64 array as bytes, within its size.
        let bytes = unsafe { std::slice::from_raw_parts(control.as_ptr().cast::<u8>(), clen) };
        Ok(Received {
            len: (n as usize).min(buf.len()),
            pkttype: from.sll_pkttype,
            control: cmsg::decode(bytes),
        })
    }

    /// Packets seen and dropped by the kernel since the last call (the counters reset on read).
    pub fn statistics(&self) -> io::Result<(u32, u32)> {
        let mut stats = TpacketStats::default();
        let mut len = std::mem::size_of::<TpacketStats>() as libc::socklen_t;
        // SAFETY: `stats` and `len` are live and sized.
        check(unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                SOL_PACKET,
                PACKET_STATISTICS,
                (&raw mut stats).cast(),
                &raw mut len,
            )
        })?;
        Ok((stats.tp_packets, stats.tp_drops))
    }

    fn hwtstamp(&self, request: libc::c_ulong, config: &mut HwtstampConfig) -> io::Result<()> {
        let mut ifr = IfreqData {
            name: [0; 16],
            data: (config as *mut HwtstampConfig).cast(),
            pad: [0; 16],
        };
        let name = self.name.as_bytes();
        ifr.name[..name.len().min(15)].copy_from_slice(&name[..name.len().min(15)]);
        // SAFETY: `ifr` points at `config`, both live for the call.
        check(unsafe { libc::ioctl(self.fd.as_raw_fd(), request as _, &raw mut ifr) }).map(|_| ())
    }

    /// Makes sure the NIC stamps every received frame in hardware. Returns the configuration
    /// to restore afterwards when it had to change it, `Ok(None)` when already on, and an error
    /// when the driver has no hardware stamps (veth: EOPNOTSUPP), in which case software
    /// stamps are used and the report says so.
    pub fn enable_hardware_rx(&self) -> io::Result<Option<HwtstampConfig>> {
        let mut current = HwtstampConfig::default();
        self.hwtstamp(SIOCGHWTSTAMP, &mut current)?;
        if current.rx_filter != HWTSTAMP_FILTER_NONE {
            return Ok(None);
        }
        let mut wanted = HwtstampConfig {
            flags: 0,
            tx_type: current.tx_type,
            rx_filter: HWTSTAMP_FILTER_ALL,
        };
        self.hwtstamp(SIOCSHWTSTAMP, &mut wanted)?;
        Ok(Some(current))
    }

    pub fn restore_hardware(&self, previous: HwtstampConfig) -> io::Result<()> {
        let mut c = previous;
        self.hwtstamp(SIOCSHWTSTAMP, &mut c)
    }
}

/// Now on CLOCK_MONOTONIC.
#[allow(clippy::unnecessary_cast)] // time_t and c_long are 32 bits on some targets
pub fn monotonic() -> Nanos {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is live.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &raw mut ts) };
    Nanos(ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64)
}

/// Now on CLOCK_REALTIME (the clock of kernel software stamps).
#[allow(clippy::unnecessary_cast)] // time_t and c_long are 32 bits on some targets
pub fn realtime() -> Nanos {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is live.
    unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &raw mut ts) };
    Nanos(ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64)
}

/// Sleeps until `at` on CLOCK_MONOTONIC (absolute, so lateness does not accumulate).
pub fn sleep_until(at: Nanos) {
    let ts = libc::timespec {
        tv_sec: (at.0 / 1_000_000_000) as libc::time_t,
        tv_nsec: (at.0 % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `ts` is live; a null remainder is allowed with TIMER_ABSTIME.
    while unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &raw const ts,
            std::ptr::null_mut(),
        )
    } == libc::EINTR
    {}
}

/// Timer slack 1 ns: the default 50 us would be added to every sleep.
pub fn tight_timer_slack() {
    // SAFETY: prctl with integer arguments only.
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0) };
}

/// Runs the calling thread under SCHED_FIFO at `priority` (needs root or CAP_SYS_NICE), so
/// other work on a busy machine does not preempt the schedule. Errors are for the report.
pub fn realtime_priority(priority: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: `param` is live; pid 0 is the calling thread.
    check(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &raw const param) }).map(|_| ())
}

impl PacketSocket {
    /// Waits until a frame can be read or `timeout` passes (ppoll: nanosecond timeout on
    /// high-resolution timers). Returns whether a frame is ready.
    pub fn wait_readable(&self, timeout: Nanos) -> io::Result<bool> {
        let mut fds = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let t = timeout.0.max(0);
        let ts = libc::timespec {
            tv_sec: (t / 1_000_000_000) as libc::time_t,
            tv_nsec: (t % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: one live pollfd, a live timespec, no signal mask.
        let n = unsafe { libc::ppoll(&raw mut fds, 1, &raw const ts, std::ptr::null()) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(false)
            } else {
                Err(e)
            };
        }
        Ok(n > 0)
    }
}

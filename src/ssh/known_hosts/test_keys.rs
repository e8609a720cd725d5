//! Keys and hashes made with OpenSSH's own tools for the tests, here and in
//! [`crate::hostkey`].

// `ssh-keygen -t ed25519` (A, B) and `-t ecdsa` (E), made for these tests only.
pub const A: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAILoKpM9d09ry56G+BSibXEy91RB5nM5WGOiFGPuOPOeb";
pub const B: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICA06ZxdMejLX8KT2a/QrYoGEXtKfJmRS7kikcdtlP8T";
pub const E: &str = "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBCGKYFiYg2X5ftlWdXAdztZpoVB3p8HAzjL0914DU1HQWHWYPsLJBMsXsjBkjW/f+x2viIx81XSgSDRdr9yDgnc=";
// `ssh-keygen -H` of `sw1.example A` and `[10.0.0.1]:2222 A`: OpenSSH's own hashes.
pub const HASHED_SW1: &str = "|1|RUvAvaeO6Abxuw2WO3TnSWCBkgQ=|oq/P3GY8jHyzjdbidhe8BciT/f0=";
pub const HASHED_10_0_0_1_2222: &str =
    "|1|MKCXGNRHiHAxrcYfAKps+Ogp344=|GOCPIYNrane2s1ZkEllUxzC3PNE=";

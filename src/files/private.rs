//! Whether a file that holds secrets is the running user's alone, as ssh asks of a private key
//! ("Permissions 0644 for 'id_ed25519' are too open"): owned by that user, with no permission
//! bit for its group or for others. The site's environment file is refused when it is not (it
//! holds every secret of the site); a secret file that is not is warned about, since refusing a
//! file that worked yesterday would stop the morning's run.

use std::fmt;
use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// How a file is open to someone besides the user premarket runs as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exposure {
    /// Another user owns it (and so may change who reads it).
    Owner { owner: u32, user: u32 },
    /// Its group or others have permission bits (the mode's last two digits).
    Mode(u32),
}

impl Exposure {
    /// What the operator types to close it.
    pub fn remedy(&self, path: &Path) -> String {
        match self {
            Exposure::Owner { user, .. } => {
                format!(
                    "chown {user} {} && chmod 600 {}",
                    path.display(),
                    path.display()
                )
            }
            Exposure::Mode(_) => format!("chmod 600 {}", path.display()),
        }
    }
}

impl fmt::Display for Exposure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exposure::Owner { owner, user } => write!(
                f,
                "belongs to uid {owner}, not to the user premarket runs as (uid {user})"
            ),
            Exposure::Mode(mode) => {
                let open = mode & 0o077;
                let how = match (open & 0o044 != 0, open & 0o022 != 0) {
                    (true, true) => "readable and writable",
                    (true, false) => "readable",
                    (false, true) => "writable",
                    (false, false) => "usable",
                };
                let who = match (open & 0o070 != 0, open & 0o007 != 0) {
                    (true, true) => "its group and others",
                    (true, false) => "its group",
                    _ => "others",
                };
                write!(f, "is {how} by {who} (mode {:04o})", mode & 0o7777)
            }
        }
    }
}

/// How the file of `metadata` is open to others, if it is.
pub fn exposure(metadata: &Metadata) -> Option<Exposure> {
    let user = super::os::uid();
    if metadata.uid() != user {
        return Some(Exposure::Owner {
            owner: metadata.uid(),
            user,
        });
    }
    (metadata.mode() & 0o077 != 0).then_some(Exposure::Mode(metadata.mode()))
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn only_the_owner_s_bits_keep_a_file_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secrets.env");
        std::fs::write(&path, "A=1\n").unwrap();
        for (mode, said) in [
            (0o600, None),
            (0o400, None),
            (0o700, None),
            (0o640, Some("is readable by its group (mode 0640)")),
            (
                0o644,
                Some("is readable by its group and others (mode 0644)"),
            ),
            (0o604, Some("is readable by others (mode 0604)")),
            (0o620, Some("is writable by its group (mode 0620)")),
            (
                0o666,
                Some("is readable and writable by its group and others (mode 0666)"),
            ),
            (0o610, Some("is usable by its group (mode 0610)")),
        ] {
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
            let found = exposure(&std::fs::metadata(&path).unwrap());
            assert_eq!(found.map(|e| e.to_string()).as_deref(), said, "{mode:o}");
        }
        assert_eq!(
            Exposure::Mode(0o640).remedy(&path),
            format!("chmod 600 {}", path.display())
        );
        let other = Exposure::Owner {
            owner: 65534,
            user: 1000,
        };
        assert_eq!(
            other.to_string(),
            "belongs to uid 65534, not to the user premarket runs as (uid 1000)"
        );
    }
}

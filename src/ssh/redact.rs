//! Keeps secrets out of everything premarket prints or stores. A device that echoes a password
//! (a misconfigured line, a hostile emulator) must not leak it into a report or a capture, so
//! every output and error from a session passes through [`Redactor::clean`].

use secrecy::{ExposeSecret, SecretString};

/// Shortest secret that is redacted; shorter values would blank ordinary text.
const MIN_LEN: usize = 4;

#[derive(Default)]
pub struct Redactor {
    secrets: Vec<SecretString>,
}

impl Redactor {
    pub fn add(&mut self, secret: &SecretString) {
        if secret.expose_secret().len() >= MIN_LEN {
            self.secrets.push(secret.clone());
        }
    }

    /// `text` with every secret replaced by `********`.
    pub fn clean(&self, text: String) -> String {
        self.secrets.iter().fold(text, |t, s| {
            if t.contains(s.expose_secret()) {
                t.replace(s.expose_secret(), "********")
            } else {
                t
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_every_secret() {
        let mut r = Redactor::default();
        r.add(&SecretString::from("hunter22"));
        r.add(&SecretString::from("abc"));
        assert_eq!(
            r.clean("pw hunter22 and hunter22, abc".into()),
            "pw ******** and ********, abc"
        );
    }
}

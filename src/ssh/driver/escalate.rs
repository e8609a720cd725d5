//! Privilege escalation: EOS `enable` whenever the prompt is not privileged (the lab notes' third
//! finding), the secret only at the password prompt, and a refusal said as what it is (a wrong
//! secret, an AAA refusal, a device error).

use regex::Regex;
use tokio::time::Instant;

use super::super::guard::Line;
use super::super::shell::Matched;
use super::{Context, Driver, Failure, failure, refused};
use premarket_core::CollectError;

impl Driver {
    /// EOS: `enable` unless the prompt already shows privileged mode.
    pub(super) async fn ensure_privileged(&mut self) -> Result<(), Failure> {
        let Some(enable) = &self.profile.enable else {
            return Ok(());
        };
        if self.prompt.trim_end().ends_with(enable.privileged_suffix) {
            return Ok(());
        }
        self.may_type()?;
        let line = Line::enable(self.profile).map_err(|r| Failure::Session(refused(r)))?;
        let deadline = Instant::now() + self.timeout;
        self.shell
            .send(&line, deadline)
            .await
            .map_err(|e| Failure::Session(failure(e, Some(&line))))?;
        let password_prompt = self.password_prompt.clone();
        let extra: Vec<&Regex> = password_prompt.iter().map(|r| &**r).collect();
        let answer = self
            .read(Some(enable.command), &extra)
            .await
            .map_err(|e| Failure::Session(failure(e, Some(&line))))?;
        let mut text = answer.output.head().to_string();
        let mut sent_secret = None;
        if let Matched::Extra(_) = answer.matched {
            let Some(secret) = &self.enable_secret else {
                return Err(Failure::Session(CollectError::Auth(
                    "the switch asks for an enable password and the baseline has no ssh.enable_secret".into(),
                )));
            };
            let reference = secret.reference.clone();
            let typed = Line::secret(&secret.value).map_err(|_| {
                Failure::Session(CollectError::Auth(format!(
                    "the enable secret ({reference}) holds a line break or another control character; it was not typed"
                )))
            })?;
            let deadline = Instant::now() + self.timeout;
            self.shell
                .send(&typed, deadline)
                .await
                .map_err(|e| Failure::Session(failure(e, Some(&typed))))?;
            text = self
                .read(None, &[])
                .await
                .map_err(|e| Failure::Session(failure(e, Some(&typed))))?
                .output
                .head()
                .to_string();
            sent_secret = Some(reference);
        }
        if self.prompt.trim_end().ends_with(enable.privileged_suffix) {
            self.raise_top(Context::new(&self.prompt, "privileged mode"));
            return Ok(());
        }
        let said = |s: &str| text.lines().any(|l| l.trim_start().starts_with(s));
        let error = if let (Some(reference), true) =
            (&sent_secret, enable.denied.iter().any(|d| said(d)))
        {
            CollectError::Auth(format!(
                "`enable` was refused: the enable secret ({reference}) is wrong"
            ))
        } else if let Some((e, line)) = self.profile.error_in(&text) {
            CollectError::Device(format!("`enable`: {line} ({})", e.advice))
        } else {
            CollectError::Device(format!(
                "`enable` did not give privileged mode (the prompt is still `{}`); check the account's privilege",
                self.prompt.trim_end()
            ))
        };
        Err(Failure::Session(error))
    }
}

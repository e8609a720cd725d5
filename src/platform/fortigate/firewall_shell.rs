//! The probe's interactive FortiGate CLI ([`Cli`]) over the same SSH layers as the collector:
//! host-key check, login, the VDOM steps, the driver and its guard. The probe's run loop is
//! synchronous, so this owns a small tokio runtime and blocks on each command; it must not be
//! used from inside another tokio runtime.
//!
//! Every line goes through the read-only allowlist except `diagnose sys session clear`, which
//! is sent only by [`Cli::clear_filtered`]: it needs a [`FilterMatched`] (made only by a
//! matching filter read-back) and refuses unless the last line this CLI sent was that
//! read-back, so nothing can change the filter between the check and the clear.

use std::sync::Arc;

use russh::client::Handle;
use tokio::runtime::Runtime;

use super::cli::PROFILE;
use super::firewall::{Cli, FilterMatched, ShellError};
use super::session_filter::SESSION_FILTER;
use premarket_core::CollectError;
use premarket_ssh::driver::Driver;
use premarket_ssh::guard::Line;
use premarket_ssh::redact::Redactor;
use premarket_ssh::script::Script;
use premarket_ssh::session::{self, Settings};
use premarket_ssh::target::Target;
use premarket_ssh::transport::Client;

/// One open CLI session on a FortiGate.
pub struct FirewallShell {
    runtime: Runtime,
    /// `None` once closed.
    open: Option<(Handle<Client>, Driver)>,
    redactor: Arc<Redactor>,
    /// The last line sent, when it succeeded; a clear needs it to be the filter read-back.
    last_sent: Option<String>,
    device: String,
}

impl FirewallShell {
    /// Connects and logs in to `target` (a FortiGate), and enters its VDOM if it has one.
    pub fn connect(target: &Target, settings: &Settings) -> Result<FirewallShell, CollectError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| CollectError::Other(format!("cannot start the SSH runtime: {e}")))?;
        let redactor = Arc::new(Redactor::for_target(target));
        let opened = runtime.block_on(async {
            let script = Script::opening(&PROFILE, target.vdom.as_deref())
                .map_err(|r| CollectError::Refused(r.to_string()))?;
            let (handle, mut driver) = session::open(target, &PROFILE, settings).await?;
            match driver.prepare(&script).await {
                Ok(()) => Ok((handle, driver)),
                Err(e) => {
                    session::close(handle, driver).await;
                    Err(e)
                }
            }
        });
        let open = opened.map_err(|e| redactor.clean_error(e))?;
        Ok(FirewallShell {
            runtime,
            open: Some(open),
            redactor,
            last_sent: None,
            device: target.name.clone(),
        })
    }

    /// Leaves the VDOM and disconnects (also done on drop, without waiting for the device).
    pub fn close(mut self) {
        if let Some((handle, driver)) = self.open.take() {
            self.runtime.block_on(session::close(handle, driver));
        }
    }

    /// Runs one driver step to completion on the runtime.
    fn on_driver<T>(
        &mut self,
        step: impl AsyncFnOnce(&mut Driver) -> Result<T, CollectError>,
    ) -> Result<T, ShellError> {
        let Some((_, driver)) = &mut self.open else {
            return Err(ShellError::Closed {
                device: self.device.clone(),
            });
        };
        let result = self.runtime.block_on(step(driver));
        result.map_err(|e| ShellError::Session {
            device: self.device.clone(),
            error: self.redactor.clean_error(e),
        })
    }
}

impl Cli for FirewallShell {
    fn run(&mut self, line: &str) -> Result<String, ShellError> {
        self.last_sent = None;
        let output = self.on_driver(async |d| d.line(line).await)?;
        self.last_sent = Some(line.to_string());
        Ok(self.redactor.literals(&output))
    }

    fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, ShellError> {
        let last = self.last_sent.take();
        if last.as_deref() != Some(SESSION_FILTER) {
            return Err(ShellError::NotAfterReadback {
                device: self.device.clone(),
                flow: proof.flow().clone(),
                last: last.unwrap_or_default(),
            });
        }
        let line = Line::proven(&PROFILE, proof).map_err(|refused| ShellError::Refused {
            device: self.device.clone(),
            refused,
        })?;
        let output = self.on_driver(async |d| d.send_proven(line).await)?;
        Ok(self.redactor.literals(&output))
    }
}

impl Drop for FirewallShell {
    fn drop(&mut self) {
        if let Some((handle, driver)) = self.open.take() {
            // Best effort and brief: the device closes the CLI when the connection goes.
            let _ = self.runtime.block_on(async {
                tokio::time::timeout(
                    std::time::Duration::from_secs(2),
                    session::close(handle, driver),
                )
                .await
            });
        }
    }
}

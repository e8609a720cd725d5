//! The context a session is in, and the prompt every reply in it must end with.
//!
//! A device can leave a context under the session: a FortiGate falls back from its VDOM to
//! root, a switch loses privileged mode. The outputs that follow read like the context's and
//! are not (13 commands judged as VDOM trading's were root's, all OK). So each step that enters
//! a context (login, `enable`, the global context, a VDOM, leaving one) names it and takes its
//! prompt from the reply that entered it, once the platform's profile has recognised that reply;
//! every other reply must end at that same prompt. One that does not fails its command, every
//! command after it is not run, and nothing more is typed in the session: not even the line
//! that would leave the context, whose effect in a context nobody knows is unknown.
//!
//! What a context's prompt looks like is the platform's (its profile: the privileged suffix,
//! the global context's and a VDOM's marks); that a reply must end at it is the same everywhere.

use super::super::guard::Line;
use super::super::profile::Profile;
use super::{Driver, Failure};
use premarket_core::CollectError;

/// Where the session is, as the prompt shows it.
#[derive(Clone, Debug)]
pub(super) struct Context {
    /// The prompt, trailing spaces dropped.
    prompt: String,
    /// How messages name the context: `privileged mode`, `VDOM trading`.
    name: String,
}

impl Context {
    pub(super) fn new(prompt: &str, name: impl Into<String>) -> Context {
        Context {
            prompt: prompt.trim_end().to_string(),
            name: name.into(),
        }
    }

    /// The context a session starts in, named by what the first prompt shows.
    pub(super) fn first(profile: &Profile, prompt: &str) -> Context {
        let name = match &profile.enable {
            Some(e) if prompt.trim_end().ends_with(e.privileged_suffix) => "privileged mode",
            Some(_) => "unprivileged mode",
            None => "the top level",
        };
        Context::new(prompt, name)
    }

    /// `Ok` when `prompt`, which ended the reply to `line`, is this context's.
    fn holds(&self, line: &Line, prompt: &str) -> Result<(), CollectError> {
        let prompt = prompt.trim_end();
        if prompt == self.prompt {
            return Ok(());
        }
        Err(CollectError::Other(format!(
            "`{}`: the prompt changed to `{prompt}` while in {} (whose prompt is `{}`): the \
             device left that context under the session, so this output is not judged and \
             nothing more is typed in the session",
            line.shown(),
            self.name,
            self.prompt
        )))
    }
}

impl Driver {
    /// Holds the reply to `line`, which ended at `prompt`, to the current context's prompt;
    /// after a change the session types nothing more.
    pub(super) fn hold_prompt(&mut self, line: &Line, prompt: &str) -> Result<(), Failure> {
        self.context.holds(line, prompt).map_err(|e| self.halt(e))
    }

    /// The session is back in its top context after `line` (leaving the global context or a
    /// VDOM): the reply must end at the top context's prompt.
    pub(super) fn back_on_top(&mut self, line: &Line, prompt: &str) -> Result<(), Failure> {
        self.top.holds(line, prompt).map_err(|e| self.halt(e))?;
        self.context = self.top.clone();
        Ok(())
    }

    /// Enters `context` for good: the top one from now on (`enable`).
    pub(super) fn raise_top(&mut self, context: Context) {
        self.top = context.clone();
        self.context = context;
    }

    fn halt(&mut self, e: CollectError) -> Failure {
        self.halted = true;
        Failure::Session(e)
    }

    /// `Err` once the prompt changed: nothing more is typed.
    pub(super) fn may_type(&self) -> Result<(), Failure> {
        if self.halted {
            return Err(Failure::Session(CollectError::Other(
                "the prompt changed earlier in the session; nothing more is typed".into(),
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_profiles::{FIREWALL, SWITCH};

    #[test]
    fn a_reply_must_end_at_its_context_s_prompt() {
        let line = Line::settle();
        let vdom = Context::new("fw1 (trading) # ", "VDOM trading");
        assert!(vdom.holds(&line, "fw1 (trading) #").is_ok());
        let e = vdom.holds(&line, "fw1 (root) # ").unwrap_err().to_string();
        assert!(
            e.starts_with(
                "``: the prompt changed to `fw1 (root) #` while in VDOM trading (whose prompt is \
                 `fw1 (trading) #`)"
            ),
            "{e}"
        );
        assert_eq!(Context::first(&SWITCH, "sw1>").name, "unprivileged mode");
        assert_eq!(Context::first(&SWITCH, "sw1#").name, "privileged mode");
        assert_eq!(Context::first(&FIREWALL, "fw1 # ").name, "the top level");
    }
}

//! Notifications: the verdict where the team already looks besides the email, a chat room
//! (Slack, Teams), a pager (PagerDuty) or any webhook (premarket's own JSON), with the email's
//! guarantees: a bound on each request, retries within the run's deadline, and what could not
//! be delivered kept in the archive's [`outbox`] and sent first by the next run (an OK run
//! exits 2 while anything waits there).
//!
//! [`notice`] says what a run is (fail, error, recovered, ok) and what it needs to say;
//! [`render`] (with [`teams`]) writes each kind's body; [`post`] sends it over HTTPS; the
//! `channel` ties them to the run. A webhook's URL and a routing key are secrets: they live
//! in [`premarket_config::Target`] only while posting and are never shown, kept or logged.

mod channel;
pub mod notice;
pub mod outbox;
pub mod post;
pub mod render;
pub mod teams;

pub use channel::NotifyChannel;
pub use notice::{Notice, State};

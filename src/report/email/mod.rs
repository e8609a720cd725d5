//! The emailed report: what on-call reads, often on a phone, minutes before the open.
//!
//! [`compose`] turns a [`Report`](crate::Report) into one MIME message (text and HTML alternatives, the JSON
//! report and the failing devices' raw outputs attached); [`send`] delivers it through the
//! site's SMTP relay with a bound on each attempt and retries inside the deadline; what cannot
//! be delivered waits in the archive's [`outbox`] and goes first next run. Nothing here
//! judges: the order and words come from the report.

mod attach;
mod channel;
mod context;
mod digest;
pub(crate) mod html;
mod message;
pub mod outbox;
mod relay;
pub mod send;
mod subject;
mod text;

pub use attach::Attachment;
pub use channel::{EmailChannel, EmailMode};
pub use context::{Context, offset};
pub use message::{Addresses, Composed, compose};
pub use send::{Delivery, SendError, Sender};
pub use subject::subject;

#[derive(Debug, thiserror::Error)]
pub enum EmailError {
    #[error("cannot build the email: {0}")]
    Build(String),
    #[error("cannot set up the SMTP relay {relay}: {reason}")]
    Relay { relay: String, reason: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: std::path::PathBuf,
        source: std::io::Error,
    },
}

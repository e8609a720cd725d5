//! A check's evaluation where the run can give up on it. Judging is pure and usually takes
//! microseconds, but a declarative rule runs a JSONPath library over device output, and some
//! paths cost far more than they look (a filter's `match()` compiles its regex at every node):
//! inline, one such check held the whole run past its deadline with no report.
//!
//! So each evaluation runs on a thread of its own while the run waits for its verdict or for
//! the moment to give up (the check's budget, the deadline, a stop signal: [`GaveUp`]). A
//! check given up on is ERROR naming what it was reading; its thread is told to stop at the
//! next path it starts ([`Watch`]) and is otherwise left to end with the process (a library
//! call cannot be cut short), its verdict thrown away. Threads are reused: a run judges
//! thousands of checks, and starting a thread costs about as much as judging one.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use super::Prepared;
use premarket_core::Verdict;
use premarket_parse::Facts;

/// The stack of an evaluation thread: as much as a main thread's, for the JSONPath library's
/// recursion over nested filters (the nesting and the input depth are bounded, see
/// [`super::rule`]).
const STACK: usize = 8 << 20;

/// How long an evaluation thread waits for the next evaluation before it ends.
const KEEP_IDLE: Duration = Duration::from_secs(10);

type Job = Box<dyn FnOnce() + Send>;

/// The evaluation threads waiting for work, each on a channel of its own. A thread held by an
/// evaluation the run gave up on is not here: it comes back when (if) that evaluation ends.
static IDLE: Mutex<Vec<mpsc::Sender<Job>>> = Mutex::new(Vec::new());

/// Runs `job` on an idle evaluation thread, or on a new one.
fn on_a_thread(mut job: Job) -> std::io::Result<()> {
    while let Some(idle) = IDLE.lock().ok().and_then(|mut idle| idle.pop()) {
        match idle.send(job) {
            Ok(()) => return Ok(()),
            // That thread stopped waiting (idle too long): the next one.
            Err(mpsc::SendError(back)) => job = back,
        }
    }
    std::thread::Builder::new()
        .name("evaluate".into())
        .stack_size(STACK)
        .spawn(move || evaluation_thread(job))
        .map(drop)
}

fn evaluation_thread(first: Job) {
    first();
    loop {
        let (tx, rx) = mpsc::channel();
        match IDLE.lock() {
            Ok(mut idle) => idle.push(tx),
            Err(_) => return,
        }
        match rx.recv_timeout(KEEP_IDLE) {
            Ok(job) => job(),
            Err(_) => return,
        }
    }
}

/// What the run sees of an evaluation in progress: the path it is reading, and whether the
/// run has given up on it.
#[derive(Debug, Default)]
pub struct Watch {
    reading: Mutex<Option<Arc<str>>>,
    abandoned: AtomicBool,
}

impl Watch {
    /// Notes that the evaluation now reads `path`; `false` when the run has given up on it
    /// (stop: the verdict will not be read).
    pub fn reading(&self, path: &Arc<str>) -> bool {
        if let Ok(mut reading) = self.reading.lock() {
            *reading = Some(path.clone());
        }
        !self.abandoned.load(Ordering::Relaxed)
    }

    fn path(&self) -> Option<Arc<str>> {
        self.reading.lock().ok().and_then(|r| r.clone())
    }

    fn abandon(&self) {
        self.abandoned.store(true, Ordering::Relaxed);
    }
}

/// Why the run stopped waiting for an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    /// The check's own budget ran out.
    Budget(Duration),
    /// The run's deadline came.
    Deadline,
    /// The run was told to stop (the signal's name).
    Interrupted(&'static str),
}

/// Evaluates `check` over `facts` on a thread of its own; when `give_up` finishes first, the
/// verdict is ERROR saying why and what the evaluation was reading. `rerun` is the command that
/// reruns this check (for the remedy).
pub async fn evaluate(
    check: Arc<dyn Prepared>,
    facts: Arc<Facts>,
    give_up: impl Future<Output = GaveUp>,
    rerun: &str,
) -> Verdict {
    let watch = Arc::new(Watch::default());
    let (tx, rx) = tokio::sync::oneshot::channel();
    let on_thread = watch.clone();
    let spawned = on_a_thread(Box::new(move || {
        let _ = tx.send(check.evaluate_watched(&facts, &on_thread));
    }));
    if let Err(e) = spawned {
        return Verdict::error(format!("not judged: the evaluation could not start: {e}"));
    }
    tokio::select! {
        biased;
        verdict = rx => verdict.unwrap_or_else(|_| {
            Verdict::error(
                "not judged: the evaluation stopped without a verdict (a bug in premarket; stderr \
                 has the panic)",
            )
        }),
        why = give_up => {
            watch.abandon();
            gave_up(why, watch.path().as_deref(), rerun)
        }
    }
}

/// The verdict of an evaluation given up on.
fn gave_up(why: GaveUp, path: Option<&str>, rerun: &str) -> Verdict {
    let reading = match path {
        Some(path) => format!("was still reading `{path}`"),
        None => "had not finished".to_string(),
    };
    match why {
        GaveUp::Budget(budget) => Verdict::error(format!(
            "not judged: after {} s, the budget of one check, the evaluation {reading}; it was \
             abandoned",
            budget.as_secs_f64()
        ))
        .remedy(format!(
            "Make the rule cheaper: name the members on the way instead of `..`, nest fewer \
             filters, and test text with the rule's `matches:` rather than a filter's `match()` or \
             `search()` (which compile their regex at every node). Then rerun `{rerun}`."
        )),
        GaveUp::Deadline => Verdict::error(format!(
            "not judged by the deadline: the evaluation {reading}"
        ))
        .remedy(format!(
            "See how long it takes outside the window with `{rerun}`; start the run earlier or \
             move the deadline."
        )),
        GaveUp::Interrupted(signal) => {
            Verdict::error(format!("interrupted ({signal}): the evaluation {reading}")).remedy(
                format!("premarket was stopped (a shutdown or `systemctl stop`); rerun `{rerun}`."),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_core::Status;
    use premarket_parse::AnyQuery;

    /// Judges by spinning until the run gives up, reading one path.
    struct Spins;

    impl Prepared for Spins {
        fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
            Vec::new()
        }

        fn evaluate(&self, facts: &Facts) -> Verdict {
            self.evaluate_watched(facts, &Watch::default())
        }

        fn evaluate_watched(&self, _facts: &Facts, watch: &Watch) -> Verdict {
            let path: Arc<str> = "$..[?match(@, 'x')]".into();
            while watch.reading(&path) {
                std::thread::sleep(Duration::from_millis(1));
            }
            Verdict::ok("stopped when told")
        }
    }

    /// Says which thread judged it.
    struct Where;

    impl Prepared for Where {
        fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
            Vec::new()
        }

        fn evaluate(&self, _facts: &Facts) -> Verdict {
            Verdict::ok(format!("{:?}", std::thread::current().id()))
        }
    }

    struct Panics;

    impl Prepared for Panics {
        fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
            Vec::new()
        }

        fn evaluate(&self, _facts: &Facts) -> Verdict {
            panic!("a check with a bug")
        }
    }

    #[tokio::test]
    async fn a_check_given_up_on_is_error_saying_why_and_what_it_read() {
        let facts = Arc::new(Facts::default());
        let cases = [
            (
                GaveUp::Budget(Duration::from_millis(50)),
                "after 0.05 s, the budget of one check",
            ),
            (GaveUp::Deadline, "not judged by the deadline"),
            (GaveUp::Interrupted("SIGTERM"), "interrupted (SIGTERM)"),
        ];
        for (why, words) in cases {
            let give_up = async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                why
            };
            let verdict =
                evaluate(Arc::new(Spins), facts.clone(), give_up, "premarket check x").await;
            assert_eq!(verdict.status, Status::Error);
            assert!(
                verdict.summary.contains(words)
                    && verdict
                        .summary
                        .contains("was still reading `$..[?match(@, 'x')]`"),
                "{}",
                verdict.summary
            );
            assert!(
                verdict
                    .remedy
                    .as_deref()
                    .is_some_and(|r| r.contains("premarket check x")),
                "{verdict:?}"
            );
        }
        let never = std::future::pending::<GaveUp>();
        let verdict = evaluate(Arc::new(Panics), facts, never, "r").await;
        assert_eq!(verdict.status, Status::Error);
        assert!(
            verdict.summary.contains("a bug in premarket"),
            "{verdict:?}"
        );
    }

    #[tokio::test]
    async fn evaluation_threads_are_reused() {
        let facts = Arc::new(Facts::default());
        let mut threads = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let never = std::future::pending::<GaveUp>();
            let verdict = evaluate(Arc::new(Where), facts.clone(), never, "r").await;
            assert_eq!(verdict.status, Status::Ok);
            threads.insert(verdict.summary);
        }
        // One after another: a handful of threads (other tests share the pool), not 200.
        assert!(threads.len() < 20, "{} threads", threads.len());
    }
}

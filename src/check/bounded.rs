//! A check's evaluation where the run can give up on it. Judging is pure and usually takes
//! microseconds, but a declarative rule runs a JSONPath library over device output, and some
//! paths cost far more than they look (a filter's `match()` compiles its regex at every node):
//! inline, one such check held the whole run past its deadline with no report.
//!
//! So evaluations run on a thread of their own (a device's checks one after another on one
//! thread, [`evaluate_each`]) while the run waits for each verdict or for the moment to give up
//! on it (the check's budget, the deadline, a stop signal: [`GaveUp`]). A check given up on is
//! ERROR naming what it was reading; its thread is told to stop at the next path it starts
//! ([`Watch`]) and is otherwise left to end with the process (a library call cannot be cut
//! short), its verdict thrown away; the device's later checks go on another thread. Threads are
//! reused: a run judges thousands of checks, and handing work to a thread costs about as much
//! as judging one.

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

    /// Notes that the next check's evaluation begins (it has read nothing yet); `false` when
    /// the run has given up on this thread.
    fn start(&self) -> bool {
        if let Ok(mut reading) = self.reading.lock() {
            *reading = None;
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

/// One check to judge: the check, the facts it judges (its own view of the device's facts, with
/// its own reference: [`Facts::with_previous`]) and the command that reruns it (for a remedy).
pub struct Evaluation {
    pub check: Arc<dyn Prepared>,
    pub facts: Facts,
    pub rerun: String,
}

/// Evaluates `check` over `facts` on an evaluation thread; when `give_up` finishes first, the
/// verdict is ERROR saying why and what the evaluation was reading. `rerun` is the command that
/// reruns this check (for the remedy).
pub async fn evaluate(
    check: Arc<dyn Prepared>,
    facts: Facts,
    give_up: impl Future<Output = GaveUp>,
    rerun: &str,
) -> Verdict {
    let give_up = std::cell::Cell::new(Some(give_up));
    let once = || {
        let give_up = give_up.take();
        async move {
            match give_up {
                Some(give_up) => give_up.await,
                None => std::future::pending().await,
            }
        }
    };
    let one = Evaluation {
        check,
        facts,
        rerun: rerun.to_string(),
    };
    let mut judged = evaluate_each(vec![one], once).await;
    judged
        .pop()
        .map(|(verdict, _)| verdict)
        .unwrap_or_else(|| Verdict::error("not judged (a bug in premarket)"))
}

/// Evaluates one device's checks in order on one evaluation thread (one hop per device, not
/// per check: the hops cost more than most judging), each with its verdict and how long its
/// evaluation took on that thread (for a check given up on, how long it was waited for). Each check is bounded on its own: `give_up()` starts as the run begins waiting for
/// its verdict. A check given up on is ERROR as in [`evaluate`]; its thread is left to it, and
/// the checks after it go on a fresh thread.
pub async fn evaluate_each<F: Future<Output = GaveUp>>(
    checks: Vec<Evaluation>,
    give_up: impl Fn() -> F,
) -> Vec<(Verdict, Duration)> {
    let mut judged = Vec::with_capacity(checks.len());
    while judged.len() < checks.len() {
        let rest = &checks[judged.len()..];
        let watch = Arc::new(Watch::default());
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let on_thread = watch.clone();
        // Each view shares the device's facts: handing them over copies pointers.
        let batch: Vec<(Arc<dyn Prepared>, Facts)> = rest
            .iter()
            .map(|e| (e.check.clone(), e.facts.clone()))
            .collect();
        let spawned = on_a_thread(Box::new(move || {
            for (check, facts) in batch {
                if !on_thread.start() {
                    return;
                }
                // The check's own time, on its thread: the run may read the verdict later.
                let started = std::time::Instant::now();
                let verdict = check.evaluate_watched(&facts, &on_thread);
                if tx.send((verdict, started.elapsed())).is_err() {
                    return;
                }
            }
        }));
        if let Err(e) = spawned {
            let why = format!("not judged: the evaluation could not start: {e}");
            judged.extend(
                rest.iter()
                    .map(|_| (Verdict::error(why.clone()), Duration::ZERO)),
            );
            break;
        }
        for Evaluation { rerun, .. } in rest {
            let waiting = std::time::Instant::now();
            let verdict = tokio::select! {
                biased;
                verdict = rx.recv() => verdict,
                why = give_up() => {
                    watch.abandon();
                    judged.push((gave_up(why, watch.path().as_deref(), rerun), waiting.elapsed()));
                    break;
                }
            };
            let Some((verdict, took)) = verdict else {
                // The thread ended without this verdict: the check panicked.
                judged.push((
                    Verdict::error(
                        "not judged: the evaluation stopped without a verdict (a bug in \
                         premarket; stderr has the panic)",
                    ),
                    waiting.elapsed(),
                ));
                break;
            };
            judged.push((verdict, took));
        }
    }
    judged
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
    use premarket_parse::{AnyQuery, Previous};

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
        let facts = Facts::default();
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

    /// Gives up after `ms` milliseconds, as a check's budget.
    fn budget(ms: u64) -> impl Fn() -> std::pin::Pin<Box<dyn Future<Output = GaveUp> + Send>> {
        move || {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(ms)).await;
                GaveUp::Budget(Duration::from_millis(ms))
            })
        }
    }

    fn each(checks: Vec<Arc<dyn Prepared>>) -> Vec<Evaluation> {
        checks
            .into_iter()
            .enumerate()
            .map(|(i, check)| Evaluation {
                check,
                facts: Facts::default(),
                rerun: format!("premarket check c{i}"),
            })
            .collect()
    }

    #[tokio::test]
    async fn a_devices_checks_share_one_thread_until_one_is_given_up_on() {
        let together = evaluate_each(
            each(vec![Arc::new(Where), Arc::new(Where), Arc::new(Where)]),
            budget(5_000),
        )
        .await;
        let threads: Vec<&str> = together.iter().map(|(v, _)| v.summary.as_str()).collect();
        assert_eq!(threads.len(), 3);
        assert!(threads.iter().all(|t| *t == threads[0]), "{threads:?}");

        // The second spins past its budget: ERROR naming it; the third is still judged, on
        // another thread.
        let judged = evaluate_each(
            each(vec![Arc::new(Where), Arc::new(Spins), Arc::new(Where)]),
            budget(50),
        )
        .await;
        let status: Vec<Status> = judged.iter().map(|(v, _)| v.status).collect();
        assert_eq!(status, [Status::Ok, Status::Error, Status::Ok]);
        let given_up = &judged[1].0;
        assert!(
            given_up.summary.contains("budget of one check")
                && given_up
                    .remedy
                    .as_deref()
                    .is_some_and(|r| r.contains("check c1")),
            "{given_up:?}"
        );
        assert!(
            judged[1].1 >= Duration::from_millis(50),
            "{:?}",
            judged[1].1
        );
        assert_ne!(judged[0].0.summary, judged[2].0.summary, "a fresh thread");

        // A panic is ERROR and the check after it judged (a budget long enough for the panic
        // hook to print a backtrace).
        let judged = evaluate_each(
            each(vec![Arc::new(Panics), Arc::new(Where)]),
            budget(10_000),
        )
        .await;
        assert!(
            judged[0].0.summary.contains("a bug in premarket"),
            "{judged:?}"
        );
        assert_eq!(judged[1].0.status, Status::Ok, "{judged:?}");
    }

    /// Says which run its reference of query `x` comes from.
    struct Reference;

    impl Prepared for Reference {
        fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
            Vec::new()
        }

        fn evaluate(&self, facts: &Facts) -> Verdict {
            let run = facts.previous_json(&key()).map(|r| r.run_id.clone());
            Verdict::ok(run.unwrap_or_else(|| "first reading".into()))
        }
    }

    fn key() -> premarket_parse::QueryKey {
        premarket_parse::QueryKey {
            command: premarket_core::Command::new("show x"),
            kind: "x".into(),
        }
    }

    #[tokio::test]
    async fn each_check_judges_against_its_own_reference() {
        let facts = Facts::default();
        let of = |run: &str| {
            Previous::from_newest_first([premarket_parse::Recorded {
                key: key(),
                run_id: run.into(),
                collected_at: None,
                fact: serde_json::json!(1).into(),
                masked: false,
            }])
        };
        let views = [Some("r1"), Some("r7"), None].map(|run| Evaluation {
            check: Arc::new(Reference),
            facts: facts.with_previous(run.map(of).unwrap_or_default()),
            rerun: String::new(),
        });
        let judged = evaluate_each(views.into(), budget(5_000)).await;
        let runs: Vec<&str> = judged.iter().map(|(v, _)| v.summary.as_str()).collect();
        assert_eq!(runs, ["r1", "r7", "first reading"]);
    }

    #[tokio::test]
    async fn evaluation_threads_are_reused() {
        let facts = Facts::default();
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

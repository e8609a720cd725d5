//! Work that a run does alone, before its first session or after its last (loading a fleet's
//! baselines, reading its previous records, archiving its outputs), shared between two
//! threads: the machine has two cores and the devices do not need them then.

/// `f` of the first half of `items` on this thread and of the second on another; the two
/// results in that order. A panic in either is this thread's.
pub fn in_halves<T: Send, R: Send>(mut items: Vec<T>, f: impl Fn(Vec<T>) -> R + Sync) -> [R; 2] {
    let second = items.split_off(items.len() / 2);
    let f = &f;
    std::thread::scope(|scope| {
        let later = scope.spawn(move || f(second));
        let first = f(items);
        match later.join() {
            Ok(second) => [first, second],
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_half_once_in_order() {
        for n in [0, 1, 2, 7] {
            let items: Vec<usize> = (0..n).collect();
            let [a, b] = in_halves(items.clone(), |half| half);
            assert!(a.len() <= b.len() && b.len() <= a.len() + 1, "{a:?} {b:?}");
            assert_eq!([a, b].concat(), items);
        }
    }
}

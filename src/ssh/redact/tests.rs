//! The redactor's unit tests: masking across breaks, a fleet's secrets, shared matchers.

use super::*;

fn redactor(secrets: &[&str]) -> Redactor {
    let mut r = Redactor::default();
    for s in secrets {
        r.add(s);
    }
    r
}

#[test]
fn a_fleets_secrets_added_at_once_are_each_masked() {
    let secrets: Vec<String> = (0..3000).map(|i| format!("pw-{i:04}-x")).collect();
    let mut at_once = Redactor::default();
    at_once.add_all(
        secrets
            .iter()
            .map(String::as_str)
            .chain(["pw-0007-x", " \x07", ""]),
    );
    // One by one, as every secret read reaches the log writer's redactor: the matcher is
    // built when first used, not per secret.
    let mut one_by_one = Redactor::default();
    for s in &secrets {
        one_by_one.add(s);
        one_by_one.add(s);
    }
    assert_eq!(
        at_once.secrets.len(),
        3000,
        "duplicates and blanks are not added"
    );
    assert_eq!(at_once.secrets, one_by_one.secrets);
    assert_eq!(one_by_one.literals("x pw-2999-x"), "x ********");
    // A clone shares the matcher, built before it is cloned.
    let mut fresh = Redactor::default();
    fresh.add("hunter22");
    let clone = fresh.clone();
    let shared = |r: &Redactor| r.matcher.get().cloned().flatten();
    assert!(matches!(
        (shared(&fresh), shared(&clone)),
        (Some(a), Some(b)) if Arc::ptr_eq(&a, &b)
    ));
    for i in [0, 7, 1499, 2999] {
        let text = format!("login ok pw-{i:04}-x done");
        assert_eq!(at_once.literals(&text), "login ok ******** done", "{i}");
    }
}

#[test]
fn a_secret_is_masked_across_breaks_and_nothing_else_is() {
    let r = redactor(&["hunter22", "a.b*c(d-e", "s3cret-with space"]);
    let cases = [
        ("pw hunter22 and hunter22", "pw ******** and ********"),
        ("echo: hunt\r\ner22 done", "echo: ********\n done"),
        ("hun\nter\n22!", "********\n\n!"),
        ("hunter2\n    2\nnext", "********\n\nnext"),
        ("h\r\nu\rn\x07t\x1b[1;31me\x1b[0mr\u{85}2\t2", "********\n"),
        ("x a.b*c(\nd-e y", "x ********\n y"),
        ("s3cret-with\n space", "s3cret-with\n space"),
        ("s3cret-with space", "********"),
        ("hunter 22 stays", "hunter 22 stays"),
        ("hunter2x2 stays", "hunter2x2 stays"),
        ("hunter22hunter22", "****************"),
        ("hunte\u{e9}r22 stays", "hunte\u{e9}r22 stays"),
        ("\u{a2}hunter22\u{a2}", "\u{a2}********\u{a2}"),
    ];
    for (text, want) in cases {
        assert_eq!(r.literals(text), want, "{text:?}");
    }
    let far = format!("hunt{}er22", "\n".repeat(MAX_GAP + 1));
    assert_eq!(r.literals(&far), far, "a break longer than MAX_GAP");
    let near = format!("hunt{}er22", "\n".repeat(MAX_GAP));
    assert_eq!(
        r.literals(&near),
        format!("********{}", "\n".repeat(MAX_GAP))
    );
}

#[test]
fn one_secret_inside_another_is_masked_whole() {
    let r = redactor(&["hunter22", "hunter22-long"]);
    assert_eq!(r.literals("a hunter22-long b"), "a ******** b");
    assert_eq!(r.literals("a hunter22 b"), "a ******** b");
    assert_eq!(redactor(&[]).literals("hunter22"), "hunter22");
    assert_eq!(redactor(&["  \n "]).literals("a  b"), "a  b");
}

#[test]
fn the_stream_masks_the_same_however_the_bytes_are_split_and_holds_little() {
    let r = redactor(&["hunter22", "CANARY-7f3a"]);
    let text = "a hun\r\nter22 b CANA\x1b[0mRY-7f\n  3a c hunter2 d \u{a2}";
    let whole = r.literals(text);
    let bytes = text.as_bytes();
    for cut in 0..bytes.len() {
        for second in cut..bytes.len() {
            let mut stream = r.stream();
            let mut out = Vec::new();
            for piece in [&bytes[..cut], &bytes[cut..second], &bytes[second..]] {
                stream.push(piece, &mut out);
                assert!(stream.held() <= stream.bound());
            }
            stream.finish(&mut out);
            assert_eq!(String::from_utf8(out).unwrap(), whole, "{cut} {second}");
        }
    }
    // Overlapping matches without end, and a break without end: memory stays bounded.
    for filler in ["hunter22", "hunter2", "hunt\n"] {
        let mut stream = r.stream();
        let mut out = Vec::new();
        for _ in 0..10_000 {
            stream.push(filler.as_bytes(), &mut out);
            assert!(
                stream.held() <= stream.bound(),
                "{filler:?}: {}",
                stream.held()
            );
        }
        stream.finish(&mut out);
        assert!(!String::from_utf8_lossy(&out).contains("hunter22"));
    }
}

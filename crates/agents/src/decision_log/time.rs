//! Times for the decision log: RFC 3339 in UTC, written and read without a
//! date-time dependency (the log needs one format and day arithmetic, not
//! time zones or calendars), and the durations `toolgate log --since`
//! takes.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Formats a time as RFC 3339 in UTC with milliseconds,
/// `2025-01-02T03:04:05.678Z`. A time before 1970 is written as the epoch
/// (a clock that far wrong says nothing useful either way).
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use toolgate_agents::decision_log::format_rfc3339;
/// let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_123);
/// assert_eq!(format_rfc3339(t), "2023-11-14T22:13:20.123Z");
/// ```
pub fn format_rfc3339(t: SystemTime) -> String {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

/// Reads an RFC 3339 time (`2025-01-02T03:04:05Z`, with optional
/// fraction, `Z` or a `±HH:MM` offset, `T` or a space between date and
/// time) or a bare date (`2025-01-02`, its midnight in UTC). `None` for
/// anything else, or a time before 1970.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use toolgate_agents::decision_log::parse_rfc3339;
/// let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
/// assert_eq!(parse_rfc3339("2023-11-14T22:13:20Z"), Some(t));
/// assert_eq!(parse_rfc3339("2023-11-15T00:13:20+02:00"), Some(t));
/// assert_eq!(parse_rfc3339("yesterday"), None);
/// ```
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    let s = text.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(r)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    if s.len() < 10 || s[4] != b'-' || s[7] != b'-' {
        return None;
    }
    let (y, mo, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) {
        return None;
    }
    let mut secs = days_from_civil(y, mo, d) * 86_400;
    let mut nanos = 0u32;
    if s.len() > 10 {
        if !matches!(s[10], b'T' | b't' | b' ') || s.len() < 19 || s[13] != b':' || s[16] != b':' {
            return None;
        }
        let (h, mi, sec) = (num(11..13)?, num(14..16)?, num(17..19)?);
        if h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        secs += h * 3600 + mi * 60 + sec;
        let mut i = 19;
        if s.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
            // Nanoseconds from the first nine digits, right-padded.
            let digits = &s[start..i.min(start + 9)];
            let mut n = 0u32;
            for (k, c) in digits.iter().enumerate() {
                n += u32::from(c - b'0') * 10u32.pow(8 - u32::try_from(k).ok()?);
            }
            nanos = n;
        }
        match s.get(i) {
            Some(b'Z' | b'z') if i + 1 == s.len() => {}
            Some(sign @ (b'+' | b'-')) if s.len() == i + 6 && s[i + 3] == b':' => {
                let off = num(i + 1..i + 3)? * 3600 + num(i + 4..i + 6)? * 60;
                secs -= if *sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
    }
    let secs = u64::try_from(secs).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, nanos))
}

/// Reads a duration: a number and a unit (`s`, `m`, `h`, `d`, `w`), and
/// several of them in a row (`1h30m`).
///
/// ```
/// use std::time::Duration;
/// use toolgate_agents::decision_log::parse_duration;
/// assert_eq!(parse_duration("90s"), Some(Duration::from_secs(90)));
/// assert_eq!(parse_duration("1h30m"), Some(Duration::from_secs(5400)));
/// assert_eq!(parse_duration("2d"), Some(Duration::from_secs(172_800)));
/// assert_eq!(parse_duration("10"), None);
/// ```
pub fn parse_duration(text: &str) -> Option<Duration> {
    let s = text.trim();
    if s.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    let mut rest = s;
    while !rest.is_empty() {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let n: u64 = rest[..digits].parse().ok()?;
        let unit_len = rest[digits..]
            .bytes()
            .take_while(u8::is_ascii_alphabetic)
            .count();
        let unit = match &rest[digits..digits + unit_len] {
            "s" | "sec" | "secs" => 1,
            "m" | "min" | "mins" => 60,
            "h" | "hr" | "hrs" => 3600,
            "d" | "day" | "days" => 86_400,
            "w" | "week" | "weeks" => 604_800,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(unit)?)?;
        rest = &rest[digits + unit_len..];
    }
    Some(Duration::from_secs(total))
}

/// `--since`'s argument: a duration back from `now`, or a time.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use toolgate_agents::decision_log::parse_since;
/// let now = UNIX_EPOCH + Duration::from_secs(1_000_000);
/// assert_eq!(parse_since("10m", now), Some(now - Duration::from_secs(600)));
/// assert_eq!(parse_since("1970-01-02", now), Some(UNIX_EPOCH + Duration::from_secs(86_400)));
/// ```
pub fn parse_since(text: &str, now: SystemTime) -> Option<SystemTime> {
    match parse_duration(text) {
        Some(d) => Some(now.checked_sub(d).unwrap_or(UNIX_EPOCH)),
        None => parse_rfc3339(text),
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_across_leap_days_and_centuries() {
        for secs in [
            0u64,
            951_782_400,   // 2000-02-29
            1_709_164_800, // 2024-02-29
            4_107_542_399, // 2100-02-28T23:59:59
            1_700_000_000,
        ] {
            let t = UNIX_EPOCH + Duration::from_secs(secs);
            let text = format_rfc3339(t);
            assert_eq!(parse_rfc3339(&text), Some(t), "{text}");
        }
        assert_eq!(
            format_rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00.000Z"
        );
    }

    #[test]
    fn bad_times_are_refused() {
        for bad in [
            "",
            "2023-02-29",
            "2023-13-01",
            "2023-11-14T25:00:00Z",
            "2023-11-14T22:13:20",
            "2023-11-14T22:13:20.Z",
            "2023-11-14T22:13:20+0200",
            "1969-12-31T23:59:59Z",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn durations() {
        for (text, want) in [
            ("30s", Some(30)),
            ("15m", Some(900)),
            ("2h", Some(7200)),
            ("1w", Some(604_800)),
            ("1d12h", Some(129_600)),
            ("h", None),
            ("5x", None),
            ("", None),
        ] {
            assert_eq!(parse_duration(text).map(|d| d.as_secs()), want, "{text:?}");
        }
    }
}

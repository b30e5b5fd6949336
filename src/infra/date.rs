//! The date stamped on tables and snapshots: `--date`, else `SOURCE_DATE_EPOCH`,
//! else today in UTC.
//!
//! Only a calendar date is ever produced; no wall-clock time goes into an output,
//! so that two runs on the same day give the same bytes.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};

use crate::infra::error::UsageError;

/// Checks a `--date` value as clap parses it, so a bad date is a usage error before
/// anything runs.
pub fn parse_arg(text: &str) -> std::result::Result<String, String> {
    parse(text).map_err(|bad| why(text, bad))
}

/// Holds a calendar date `YYYY-MM-DD` that exists, checked where it is read (a
/// corpus's `as_of`); it orders as the calendar does.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(String);

impl Date {
    /// Returns `text` as a date, or what is wrong with it (as [`parse_arg`] says it).
    pub fn parse(text: &str) -> std::result::Result<Date, String> {
        parse_arg(text).map(Date)
    }

    /// Returns the date as `YYYY-MM-DD`.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Returns what is wrong with `date`, for a message that goes on to name the flag.
fn why(date: &str, bad: Bad) -> String {
    match bad {
        Bad::Form => format!("'{date}' is not a date of the form YYYY-MM-DD"),
        Bad::NoSuchDay { year, month } => format!(
            "'{date}' does not exist: {} {year} has {} days",
            MONTHS[month as usize - 1],
            days_in_month(year, month)
        ),
        Bad::NoSuchMonth => format!("'{date}' does not exist: there is no month {}", &date[5..7]),
    }
}

/// Returns the date to stamp, as `YYYY-MM-DD`.
///
/// Fails when `--date` or `SOURCE_DATE_EPOCH` is given but malformed.
pub fn resolve(flag: Option<&str>) -> Result<String> {
    if let Some(date) = flag {
        return parse(date).map_err(|bad| UsageError(format!("--date {}", why(date, bad))).into());
    }
    if let Ok(epoch) = std::env::var("SOURCE_DATE_EPOCH") {
        let secs: i64 = epoch.trim().parse().map_err(|_| {
            UsageError(format!(
                "SOURCE_DATE_EPOCH '{epoch}' is not a whole number of seconds"
            ))
        })?;
        return Ok(from_unix(secs));
    }
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .context("the system clock is before 1970")?
        .as_secs();
    Ok(from_unix(secs as i64))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Why a `--date` is refused.
#[derive(Debug, PartialEq, Eq)]
enum Bad {
    /// Not `YYYY-MM-DD` digits.
    Form,
    /// Month 00 or above 12.
    NoSuchMonth,
    /// Day 00 or past the month's end.
    NoSuchDay { year: i64, month: u32 },
}

/// Returns `text` when it is a real calendar date `YYYY-MM-DD`.
fn parse(text: &str) -> Result<String, Bad> {
    let bytes = text.as_bytes();
    let digits = |range: std::ops::Range<usize>| bytes[range].iter().all(u8::is_ascii_digit);
    if bytes.len() != 10
        || bytes[4] != b'-'
        || bytes[7] != b'-'
        || !digits(0..4)
        || !digits(5..7)
        || !digits(8..10)
    {
        return Err(Bad::Form);
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().map_err(|_| Bad::Form);
    let year = i64::from(number(0..4)?);
    let month = number(5..7)?;
    let day = number(8..10)?;
    if !(1..=12).contains(&month) {
        return Err(Bad::NoSuchMonth);
    }
    if day == 0 || day > days_in_month(year, month) {
        return Err(Bad::NoSuchDay { year, month });
    }
    Ok(text.to_string())
}

/// Returns the number of days `month` (1 to 12) of `year` has.
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        4 | 6 | 9 | 11 => 30,
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        _ => 31,
    }
}

/// Returns the year, month and day of a valid `YYYY-MM-DD` date (as [`parse_arg`]
/// accepts it), or `None` for any other text.
pub fn parts(date: &str) -> Option<(i64, u32, u32)> {
    parse(date).ok()?;
    Some((
        date[0..4].parse().ok()?,
        date[5..7].parse().ok()?,
        date[8..10].parse().ok()?,
    ))
}

/// Returns the Unix time in seconds of the last second of `year-month-day` in UTC
/// (23:59:59), the instant a dated pin stands at.
///
/// Howard Hinnant's `days_from_civil`, the inverse of [`from_unix`]'s algorithm.
pub fn day_end(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    days * 86_400 + 86_399
}

/// Returns the UTC time of a Unix time in seconds as `YYYY-MM-DD HH:MM:SS`.
pub fn utc_time(secs: i64) -> String {
    let of_day = secs.rem_euclid(86_400);
    format!(
        "{} {:02}:{:02}:{:02}",
        from_unix(secs),
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60
    )
}

/// Returns a Unix time in seconds as `YYYY-MM-DDTHH:MM:SSZ` (RFC 3339, UTC).
pub fn rfc3339(secs: i64) -> String {
    format!("{}Z", utc_time(secs).replacen(' ', "T", 1))
}

/// Returns the Unix time in seconds of `YYYY-MM-DDTHH:MM:SSZ` (a real date, a time
/// of day before 24:00:00), or `None` for any other text.
pub fn parse_utc(text: &str) -> Option<i64> {
    let (day, time) = text.strip_suffix('Z')?.split_once('T')?;
    let (y, m, d) = parts(day)?;
    let bytes = time.as_bytes();
    let is_form = bytes.len() == 8
        && bytes[2] == b':'
        && bytes[5] == b':'
        && [0, 1, 3, 4, 6, 7]
            .iter()
            .all(|&i| bytes[i].is_ascii_digit());
    if !is_form {
        return None;
    }
    let number = |at: usize| i64::from((bytes[at] - b'0') * 10 + (bytes[at + 1] - b'0'));
    let (hh, mm, ss) = (number(0), number(3), number(6));
    if hh > 23 || mm > 59 || ss > 59 {
        return None;
    }
    Some(day_end(y, m, d) - 86_399 + hh * 3600 + mm * 60 + ss)
}

/// Returns the UTC calendar date of a Unix time in seconds.
///
/// Howard Hinnant's `civil_from_days`, valid for every date in the proleptic
/// Gregorian calendar.
pub fn from_unix(secs: i64) -> String {
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Says how far apart the dates of `--since` are: a number of days, weeks, months
/// or years (`3months`, `1month`, `2weeks`, `10days`, `1year`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Days(u32),
    Weeks(u32),
    Months(u32),
    Years(u32),
}

impl std::str::FromStr for Step {
    type Err = String;

    fn from_str(text: &str) -> Result<Step, String> {
        let bad = || {
            format!(
                "'{text}' is not a step: a whole number and a unit, e.g. 3months, 1month, 2weeks, 10days, 1year"
            )
        };
        let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let n: u32 = match digits.parse() {
            Ok(n) if n > 0 && n <= 10_000 && !digits.starts_with('+') => n,
            _ => return Err(bad()),
        };
        let unit = &text[digits.len()..];
        let step = match unit {
            "day" | "days" => Step::Days(n),
            "week" | "weeks" => Step::Weeks(n),
            "month" | "months" => Step::Months(n),
            "year" | "years" => Step::Years(n),
            _ => return Err(bad()),
        };
        // One is singular, any other number plural.
        if (n == 1) == unit.ends_with('s') {
            return Err(bad());
        }
        Ok(step)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_times_read_back_as_written() {
        // The values are Python's datetime.fromisoformat(...).timestamp().
        for (text, secs) in [
            ("2025-06-01T23:59:59Z", 1_748_822_399),
            ("2025-06-15T08:00:00Z", 1_749_974_400),
            ("1969-12-31T23:59:59Z", -1),
            ("2024-02-29T12:34:56Z", 1_709_210_096),
        ] {
            assert_eq!(parse_utc(text), Some(secs), "{text}");
            assert_eq!(rfc3339(secs), text);
        }
        for bad in [
            "2025-06-01 23:59:59Z",
            "2025-06-01T23:59:59",
            "2025-06-01T24:00:00Z",
            "2025-02-29T00:00:00Z",
            "2025-06-01T1:00:00Z",
            "2025-06-01T23:59:60Z",
            "2025-06-01T23:5a:00Z",
        ] {
            assert_eq!(parse_utc(bad), None, "{bad}");
        }
    }

    #[test]
    fn unix_times_become_utc_dates() {
        assert_eq!(from_unix(0), "1970-01-01");
        assert_eq!(from_unix(951_782_400), "2000-02-29");
        // 2026-09-07T23:59:59Z and one second later.
        assert_eq!(from_unix(1_788_825_599), "2026-09-07");
        assert_eq!(from_unix(1_788_825_600), "2026-09-08");
        assert_eq!(from_unix(-1), "1969-12-31");
    }

    #[test]
    fn a_day_ends_one_second_before_the_next_begins() {
        assert_eq!(day_end(1970, 1, 1), 86_399);
        assert_eq!(day_end(2026, 9, 7), 1_788_825_599);
        assert_eq!(day_end(2000, 2, 29), 951_868_799);
        assert_eq!(day_end(1969, 12, 31), -1);
        for secs in [
            0i64,
            951_782_400,
            1_788_825_599,
            4_102_444_800,
            -86_400 * 400,
        ] {
            let (y, m, d) = parts(&from_unix(secs)).unwrap();
            let end = day_end(y, m, d);
            assert!(end >= secs && end - secs < 86_400, "{secs}");
            assert_eq!(from_unix(end), from_unix(secs));
            assert_ne!(from_unix(end + 1), from_unix(secs));
        }
        assert_eq!(utc_time(1_788_825_599), "2026-09-07 23:59:59");
        assert_eq!(utc_time(-1), "1969-12-31 23:59:59");
        assert_eq!(parts("2025-02-29"), None);
    }

    #[test]
    fn only_real_dates_parse() {
        assert_eq!(parse("2026-09-07").as_deref(), Ok("2026-09-07"));
        assert_eq!(parse("2024-02-29").as_deref(), Ok("2024-02-29"));
        for bad in [
            "2026-9-7",
            "26-09-07",
            "2026/09/07",
            "2026-+9-07",
            "２０２６-09-07",
        ] {
            assert_eq!(parse(bad), Err(Bad::Form), "{bad}");
        }
        assert_eq!(parse("2026-13-01"), Err(Bad::NoSuchMonth));
        for (bad, year, month) in [
            ("2026-02-29", 2026, 2),
            ("2026-04-31", 2026, 4),
            ("1900-02-29", 1900, 2),
            ("2026-01-00", 2026, 1),
        ] {
            assert_eq!(parse(bad), Err(Bad::NoSuchDay { year, month }), "{bad}");
        }
    }

    #[test]
    fn a_date_that_does_not_exist_is_named_so() {
        let err = resolve(Some("2026-02-30")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--date '2026-02-30' does not exist: February 2026 has 28 days"
        );
        let err = resolve(Some("2026-00-10")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--date '2026-00-10' does not exist: there is no month 00"
        );
        let err = resolve(Some("30.02.2026")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--date '30.02.2026' is not a date of the form YYYY-MM-DD"
        );
    }
}

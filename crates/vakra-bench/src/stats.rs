//! Order statistics over sorted samples.

/// Nearest-rank percentile of ascending `sorted` values, with the rank given in parts per
/// thousand (500 = median, 999 = p99.9, 1000 = maximum): the smallest value with at least
/// that share of the samples at or below it. `None` when there are no samples.
pub fn percentile<T: Copy>(sorted: &[T], per_mille: u64) -> Option<T> {
    let n = sorted.len() as u64;
    if n == 0 {
        return None;
    }
    let rank = (per_mille * n).div_ceil(1000).clamp(1, n);
    sorted.get(rank as usize - 1).copied()
}

/// The median of ascending `sorted` values (the mean of the middle two for an even count).
pub fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    })
}

/// Rounds to `decimals` decimal places, for reports.
pub fn round(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let values: Vec<u32> = (1..=1000).collect();
        assert_eq!(percentile(&values, 500), Some(500));
        assert_eq!(percentile(&values, 900), Some(900));
        assert_eq!(percentile(&values, 990), Some(990));
        assert_eq!(percentile(&values, 999), Some(999));
        assert_eq!(percentile(&values, 1000), Some(1000));
        assert_eq!(percentile(&values, 0), Some(1));

        let few = [10, 20, 30];
        assert_eq!(percentile(&few, 500), Some(20));
        assert_eq!(percentile(&few, 900), Some(30));
        assert_eq!(percentile(&few, 1), Some(10));
        assert_eq!(percentile(&[7], 999), Some(7));
        assert_eq!(percentile::<u32>(&[], 500), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 4.0, 9.0]), Some(3.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn rounding() {
        assert_eq!(round(1.23456, 3), 1.235);
        assert_eq!(round(2.0, 3), 2.0);
    }
}

//! Summaries of repeated measurements: min and median of batches, the spread around an
//! equal share, a least-squares line, and the half-power point of a bandwidth curve. Pure
//! functions, unit-tested.

/// The smallest value; NaN for an empty slice.
pub fn min(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NAN, f64::min)
}

/// The largest value; NaN for an empty slice.
pub fn max(xs: &[f64]) -> f64 {
    xs.iter().copied().fold(f64::NAN, f64::max)
}

/// The median (mean of the middle two for an even count); NaN for an empty slice.
pub fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    }
}

/// The largest `|x / mean - 1|`: how far the value furthest from an equal share lies from
/// it, as a fraction; NaN for an empty slice or a zero mean.
pub fn max_relative_deviation(xs: &[f64]) -> f64 {
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    xs.iter()
        .map(|x| (x / mean - 1.0).abs())
        .fold(f64::NAN, f64::max)
}

/// Least-squares fit `y = intercept + slope * x`; `None` with fewer than two distinct xs.
pub fn linear_fit(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    if points.len() < 2 {
        return None;
    }
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((my - slope * mx, slope))
}

/// The size at which bandwidth first reaches half of `peak`, interpolated linearly in
/// log2(size) between the two measured sizes around it. `curve` is (bytes, MB/s) in
/// ascending size. `None` for an empty curve or a non-positive peak.
pub fn half_power_point(curve: &[(usize, f64)], peak: f64) -> Option<f64> {
    if curve.is_empty() || peak.is_nan() || peak <= 0.0 {
        return None;
    }
    let half = peak / 2.0;
    let i = curve.iter().position(|&(_, bw)| bw >= half)?;
    if i == 0 {
        return Some(curve[0].0 as f64);
    }
    let (s0, b0) = (curve[i - 1].0 as f64, curve[i - 1].1);
    let (s1, b1) = (curve[i].0 as f64, curve[i].1);
    let frac = if b1 > b0 {
        (half - b0) / (b1 - b0)
    } else {
        1.0
    };
    let log = s0.log2() + frac * (s1.log2() - s0.log2());
    Some(log.exp2())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_max_and_median_of_odd_and_even_counts() {
        assert_eq!(min(&[3.0, 1.0, 2.0]), 1.0);
        assert_eq!(max(&[3.0, 1.0, 2.0]), 3.0);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert!(median(&[]).is_nan() && min(&[]).is_nan());
    }

    #[test]
    fn relative_deviation_is_measured_from_the_mean() {
        // Mean 100: 80 lies 20% below it, 110 10% above.
        let d = max_relative_deviation(&[80.0, 110.0, 110.0]);
        assert!((d - 0.2).abs() < 1e-12, "{d}");
        assert_eq!(max_relative_deviation(&[5.0, 5.0]), 0.0);
        assert!(max_relative_deviation(&[]).is_nan());
        assert!(max_relative_deviation(&[0.0, 0.0]).is_nan());
    }

    #[test]
    fn a_fit_recovers_a_line() {
        let pts: Vec<(f64, f64)> = (0..5).map(|i| (i as f64, 2.0 + 0.5 * i as f64)).collect();
        let (b, m) = linear_fit(&pts).unwrap();
        assert!((b - 2.0).abs() < 1e-12 && (m - 0.5).abs() < 1e-12);
        assert!(linear_fit(&[(1.0, 1.0)]).is_none());
        assert!(linear_fit(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
    }

    #[test]
    fn half_power_interpolates_in_log_size() {
        // 100 at 1 KiB, 300 at 4 KiB (two doublings), peak 400: half (200) lies halfway.
        let curve = [(1024, 100.0), (4096, 300.0), (8192, 400.0)];
        let n = half_power_point(&curve, 400.0).unwrap();
        assert!((n - 2048.0).abs() < 1e-9, "{n}");
        // Reached at the first size: that size.
        assert_eq!(
            half_power_point(&[(8, 900.0), (16, 1000.0)], 1000.0),
            Some(8.0)
        );
        // Exactly at a measured size.
        assert_eq!(
            half_power_point(&[(8, 10.0), (16, 50.0), (32, 100.0)], 100.0),
            Some(16.0)
        );
        assert_eq!(half_power_point(&[], 1.0), None);
        assert_eq!(half_power_point(&[(8, 1.0)], 0.0), None);
    }
}

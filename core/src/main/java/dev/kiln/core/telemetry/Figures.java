package dev.kiln.core.telemetry;

import java.util.Arrays;
import java.util.Collection;

/**
 * The few statistics Kiln reports: medians, nearest-rank percentiles and rounding of measured figures. One
 * place, so a median means the same in the probe report, the daemon's metrics and every {@code kiln bench}.
 */
public final class Figures {
    private Figures() {
    }

    /** The median; of an even count, the mean of the middle two. Throws on no values. */
    public static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("the median of no values is undefined");
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** The median of {@code values} (in any order). */
    public static double median(Collection<? extends Number> values) {
        return median(values.stream().mapToDouble(Number::doubleValue).toArray());
    }

    /** The median of nanosecond samples, in milliseconds. */
    public static double medianMillis(long[] nanos) {
        return median(Arrays.stream(nanos).mapToDouble(Figures::millis).toArray());
    }

    /** The nearest-rank {@code p}-th percentile (0 < p ≤ 100): the smallest value with p % of values at or below it. */
    public static double percentile(Collection<? extends Number> values, double p) {
        if (values.isEmpty() || !(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("a percentile needs values and 0 < p <= 100, got " + values.size() + " values, p " + p);
        }
        double[] s = values.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, i))];
    }

    /** {@code v} rounded half up to {@code decimals} places (a figure for JSON, not for further arithmetic). */
    public static double round(double v, int decimals) {
        if (decimals < 0 || decimals > 9) {
            throw new IllegalArgumentException("decimals must be 0..9, got " + decimals);
        }
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    /** Nanoseconds as milliseconds. */
    public static double millis(long nanos) {
        return nanos / 1e6;
    }
}

package dev.kiln.core.alert;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * One alert rule (an immutable value), the shape of a Prometheus alerting rule with a single comparison: it is active
 * while a series of {@code metric} compares true against {@code threshold}, and fires once it has been active for
 * {@code duration}.
 *
 * @param name the alert's name, CamelCase as Prometheus' convention ({@code KilnContractFailures})
 * @param metric a metric of Kiln's {@code /metrics}, optionally with one label matcher
 *     ({@code kiln_health{state="failing"}})
 * @param comparison how a value is compared with the threshold
 * @param threshold the threshold
 * @param duration how long it must hold before it fires (zero: at once)
 * @param severity {@code warning} or {@code critical}
 * @param summary what it means, in one line
 */
public record AlertRule(String name, String metric, Comparison comparison, double threshold, Duration duration,
        String severity, String summary) {

    /** The comparisons Prometheus' binary operators offer. */
    public enum Comparison {
        GT(">"), GE(">="), LT("<"), LE("<="), EQ("=="), NE("!=");

        private final String symbol;

        Comparison(String symbol) {
            this.symbol = symbol;
        }

        public String symbol() {
            return symbol;
        }

        /** The comparison of a symbol ({@code >}, {@code >=}, {@code <}, {@code <=}, {@code ==}, {@code !=}). */
        public static Comparison ofSymbol(String s) {
            for (Comparison c : values()) {
                if (c.symbol.equals(s)) {
                    return c;
                }
            }
            throw new IllegalArgumentException("\"" + s + "\" is not a comparison (>, >=, <, <=, ==, !=)");
        }

        public boolean test(double value, double threshold) {
            return switch (this) {
                case GT -> value > threshold;
                case GE -> value >= threshold;
                case LT -> value < threshold;
                case LE -> value <= threshold;
                case EQ -> value == threshold;
                case NE -> value != threshold;
            };
        }
    }

    public AlertRule {
        Objects.requireNonNull(comparison, "comparison");
        Objects.requireNonNull(summary, "summary");
        if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("\"name\" must be letters, digits and _ (a Prometheus alert name): " + name);
        }
        if (!metric.matches("[a-zA-Z_:][a-zA-Z0-9_:]*(\\{[a-zA-Z_][a-zA-Z0-9_]*=\"[^\"\\\\{}]*\"})?")) {
            throw new IllegalArgumentException("\"metric\" must be a metric name with at most one label matcher,"
                    + " e.g. kiln_health{state=\"failing\"}: " + metric);
        }
        if (!Double.isFinite(threshold)) {
            throw new IllegalArgumentException("\"threshold\" must be a finite number: " + threshold);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("\"for\" must not be negative: " + duration);
        }
        if (!severity.equals("warning") && !severity.equals("critical")) {
            throw new IllegalArgumentException("\"severity\" must be warning or critical: " + severity);
        }
    }

    /** The metric's name without its label matcher. */
    public String metricName() {
        int brace = metric.indexOf('{');
        return brace < 0 ? metric : metric.substring(0, brace);
    }

    /** The PromQL expression: {@code kiln_projection_contract_failures > 0}. */
    public String expression() {
        return metric + " " + comparison.symbol() + " " + number(threshold);
    }

    /** {@code metric > 0 for 30s}: how the CLI and the console show it. */
    public String describe() {
        return expression() + " for " + promDuration(duration);
    }

    static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : Double.toString(d);
    }

    /** A Prometheus duration: {@code 0s}, {@code 30s}, {@code 1500ms}. */
    static String promDuration(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    @Override
    public String toString() {
        return name + ": " + describe() + " (" + severity.toLowerCase(Locale.ROOT) + ")";
    }
}

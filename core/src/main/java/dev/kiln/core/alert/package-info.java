/**
 * Alert rules over Kiln's metric names: {@link dev.kiln.core.alert.AlertRule} (metric, comparison, threshold,
 * duration), loaded from {@code alerts.json} or the shipped defaults by {@link dev.kiln.core.alert.AlertRules}, which
 * also writes them as a Prometheus rules file; {@link dev.kiln.core.alert.Alerts} evaluates them against samples
 * with an injected clock (pending, firing after the duration, resolved) and publishes
 * {@link dev.kiln.core.alert.AlertFired} and {@link dev.kiln.core.alert.AlertResolved} once per transition.
 */
@NullMarked
package dev.kiln.core.alert;

import org.jspecify.annotations.NullMarked;

/**
 * One health verdict for a daemon or a console's workspace: {@link dev.kiln.core.health.HealthRules} judges a
 * {@link dev.kiln.core.health.HealthEvidence} into a {@link dev.kiln.core.health.HealthVerdict} (healthy, degraded or
 * failing, with every reason), by one table of which reason makes which state. The daemon's health answer, its
 * metrics, {@code kiln status}, the Fleet page and the console's cards all show that verdict.
 */
@NullMarked
package dev.kiln.core.health;

import org.jspecify.annotations.NullMarked;

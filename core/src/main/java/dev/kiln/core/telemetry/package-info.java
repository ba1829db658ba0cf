/**
 * What every engine shares: typed events ({@link dev.kiln.core.telemetry.KilnEvent}) published to an
 * {@link dev.kiln.core.telemetry.EventSink} (the {@link dev.kiln.core.telemetry.EventBus} fans them out), and the one
 * injected time source, {@link dev.kiln.core.telemetry.Ticker}.
 */
@NullMarked
package dev.kiln.core.telemetry;

import org.jspecify.annotations.NullMarked;

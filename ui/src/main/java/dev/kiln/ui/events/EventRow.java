package dev.kiln.ui.events;

import java.time.Instant;

/**
 * One line of the Events page.
 *
 * @param at when it happened
 * @param kind the event's type, in words ({@code TickFinished} → {@code tick finished})
 * @param summary what happened
 */
public record EventRow(Instant at, String kind, String summary) {
}

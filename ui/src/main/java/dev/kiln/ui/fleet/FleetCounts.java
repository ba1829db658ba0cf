package dev.kiln.ui.fleet;

import dev.kiln.core.health.HealthState;
import dev.kiln.ui.health.CardState;
import java.util.ArrayList;
import java.util.List;

/**
 * The fleet by verdict (an immutable value), for the Fleet page's cards: how many daemons are healthy, degraded,
 * failing (they answered, and core judged them failing), unreachable (they did not answer, or refused) and not asked
 * yet, with each group's daemons named beside their first reason.
 *
 * @param healthy daemons judged healthy
 * @param degraded daemons judged degraded
 * @param failing daemons that answered and were judged failing
 * @param unreachable daemons that did not answer (judged failing with the reason {@code unreachable})
 * @param unknown daemons not asked yet
 * @param degradedNames "name: first reason" of each degraded daemon, in list order
 * @param failingNames the same for the failing ones
 * @param unreachableNames the same for the unreachable ones (the reason: why it did not answer)
 */
public record FleetCounts(int healthy, int degraded, int failing, int unreachable, int unknown, List<String> degradedNames,
        List<String> failingNames, List<String> unreachableNames) {
    /** How many daemons a card's line names before "+N more" (the tooltip names them all). */
    static final int NAMED = 3;

    public FleetCounts {
        degradedNames = List.copyOf(degradedNames);
        failingNames = List.copyOf(failingNames);
        unreachableNames = List.copyOf(unreachableNames);
    }

    /** Counts {@code rows}. */
    public static FleetCounts of(List<FleetRow> rows) {
        int healthy = 0;
        int unknown = 0;
        List<String> degraded = new ArrayList<>();
        List<String> failing = new ArrayList<>();
        List<String> unreachable = new ArrayList<>();
        for (FleetRow r : rows) {
            if (r.verdict().isEmpty()) {
                unknown++;
            } else if (r.state() == FleetRow.State.DOWN) {
                unreachable.add(r.name() + ": " + (r.error().isEmpty() ? "does not answer" : r.error()));
            } else {
                HealthState s = r.verdict().get().state();
                String first = r.verdict().get().reasons().isEmpty() ? "" : ": " + r.verdict().get().reasons().get(0).message();
                switch (s) {
                    case HEALTHY -> healthy++;
                    case DEGRADED -> degraded.add(r.name() + first);
                    case FAILING -> failing.add(r.name() + first);
                }
            }
        }
        return new FleetCounts(healthy, degraded.size(), failing.size(), unreachable.size(), unknown, degraded, failing, unreachable);
    }

    /** Every daemon counted. */
    public int total() {
        return healthy + degraded + failing + unreachable + unknown;
    }

    /** The Healthy card: always healthy's colour; its line says of how many and how many are not asked yet. */
    public CardState healthyCard() {
        String line = healthy + " of " + total() + (unknown == 0 ? "" : " · " + unknown + " not asked yet");
        return new CardState(HealthState.HEALTHY, total() == 0 ? "" : line);
    }

    /** The Degraded card: degraded's colour while one is; its line names them. */
    public CardState degradedCard() {
        return card(HealthState.DEGRADED, degradedNames);
    }

    /** The Failing card: failing's colour while one is. */
    public CardState failingCard() {
        return card(HealthState.FAILING, failingNames);
    }

    /** The Unreachable card: failing's colour while one does not answer. */
    public CardState unreachableCard() {
        return card(HealthState.FAILING, unreachableNames);
    }

    private static CardState card(HealthState state, List<String> named) {
        if (named.isEmpty()) {
            return new CardState(HealthState.HEALTHY, "");
        }
        List<String> names = named.stream().limit(NAMED).map(n -> n.contains(": ") ? n.substring(0, n.indexOf(": ")) : n).toList();
        String line = String.join(", ", names) + (named.size() > NAMED ? " +" + (named.size() - NAMED) + " more" : "");
        return new CardState(state, line, String.join("\n", named));
    }
}

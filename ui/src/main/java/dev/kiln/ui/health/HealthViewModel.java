package dev.kiln.ui.health;

import dev.kiln.core.alert.Alert;
import dev.kiln.core.alert.AlertFired;
import dev.kiln.core.alert.AlertRule;
import dev.kiln.core.alert.AlertRules;
import dev.kiln.core.alert.Alerts;
import dev.kiln.core.engine.Engine;
import dev.kiln.core.engine.EngineEvent;
import dev.kiln.core.health.HealthEvidence;
import dev.kiln.core.health.HealthReason;
import dev.kiln.core.health.HealthRules;
import dev.kiln.core.health.HealthState;
import dev.kiln.core.health.HealthVerdict;
import dev.kiln.core.projection.TickFinished;
import dev.kiln.core.seed.SeedEvent;
import dev.kiln.core.startup.ProbeEvent;
import dev.kiln.core.telemetry.KilnEvent;
import dev.kiln.core.watch.WatchChanged;
import dev.kiln.ui.util.Background;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import javafx.beans.property.ReadOnlyIntegerProperty;
import javafx.beans.property.ReadOnlyIntegerWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The engine's health verdict and alert rules, for the stat cards and the Alerts panel: the evidence is asked off
 * the FX thread after what can change it (a tick, a watch change, a warm or probe that finished, the daemon lost or
 * back, and at least every {@link #EVERY} while the page ticks its clock), judged by core's {@link HealthRules}, and
 * the rules evaluated over its samples; an {@link AlertFired} reaches the fired listener once per firing.
 *
 * <p>Concurrency: FX thread only; the evidence is read in {@link Background} work, one ask at a time (one more is
 * run after it when something changed meanwhile).
 */
public final class HealthViewModel {
    /** The cards that show state. */
    public enum Card {
        /** The verdict itself. */
        HEALTH,
        /** The projection's age: stale, pending, failed, watch, state file. */
        AGE,
        /** Contract failures. */
        FAILURES
    }

    /** How often the verdict is asked again with no event (ages grow without events). */
    public static final Duration EVERY = Duration.ofSeconds(5);

    private static final Set<String> AGE_CODES = Set.of("projection_stale", "projection_pending", "projection_failed",
            "watch_degraded", "watch_polling", "state_file_unwritable");
    private static final DateTimeFormatter SINCE = DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

    private final Engine engine;
    private final Background background;
    private Alerts alerts;
    private final List<AlertFired> fired = new ArrayList<>(); // filled while evaluating, drained on the FX thread
    private final ReadOnlyObjectWrapper<HealthVerdict> verdict = new ReadOnlyObjectWrapper<>();
    private final Map<Card, ReadOnlyObjectWrapper<CardState>> cards = new EnumMap<>(Card.class);
    private final ObservableList<AlertRow> rows = FXCollections.observableArrayList();
    /** One read-only view, kept: a wrapper listens to {@code rows} weakly and would stop passing changes once collected. */
    private final ObservableList<AlertRow> readOnlyRows = FXCollections.unmodifiableObservableList(rows);
    private final ReadOnlyIntegerWrapper firing = new ReadOnlyIntegerWrapper();
    private final ReadOnlyStringWrapper rulesNote = new ReadOnlyStringWrapper("");
    private final ReadOnlyStringWrapper lastResolved = new ReadOnlyStringWrapper("");
    private List<Alert> active = List.of();
    private Consumer<AlertFired> onFired = a -> { };
    private boolean asking;
    private boolean askAgain;
    private Instant lastAsk = Instant.MIN;

    public HealthViewModel(Engine engine, Background background, List<AlertRule> rules) {
        this.engine = engine;
        this.background = background;
        for (Card c : Card.values()) {
            cards.put(c, new ReadOnlyObjectWrapper<>(CardState.UNKNOWN));
        }
        useRules(rules);
    }

    private void useRules(List<AlertRule> rules) {
        this.alerts = new Alerts(rules, engine.clock(), e -> {
            if (e instanceof AlertFired f) {
                fired.add(f);
            } else if (e instanceof dev.kiln.core.alert.AlertResolved r) {
                lastResolved.set(r.rule().name() + " resolved at " + SINCE.format(r.at()) + " (firing since "
                        + SINCE.format(r.firedAt()) + ")");
            }
        });
    }

    /** The rules of {@code alerts.json} (or the defaults, with the file's problem): evaluated from the next ask. */
    public void setRules(AlertRules.Loaded loaded) {
        useRules(loaded.rules());
        rulesNote.set(loaded.problem().orElse(loaded.fromFile() ? "Rules from " + loaded.file()
                : "Default rules (no " + loaded.file() + ")"));
        refresh();
    }

    /** Called once per firing of a rule (not per evaluation), on the FX thread. */
    public void setFiredListener(Consumer<AlertFired> listener) {
        this.onFired = listener;
    }

    /** Asks again after what can change the verdict. */
    public void accept(List<? extends KilnEvent> batch) {
        for (KilnEvent e : batch) {
            if (e instanceof TickFinished || e instanceof WatchChanged || e instanceof SeedEvent.WarmFinished
                    || e instanceof ProbeEvent.Finished || e instanceof EngineEvent.ConnectionChanged) {
                refresh();
                return;
            }
        }
    }

    /** Re-reads the clock for the panel's "since" texts; asks again when the last ask is {@link #EVERY} old. */
    public void refreshClock() {
        Instant now = engine.clock().instant();
        if (Duration.between(lastAsk, now).compareTo(EVERY) >= 0) {
            refresh();
        }
        showAlerts(now);
    }

    /** Asks the engine for its evidence off the FX thread, then judges it and evaluates the rules. */
    public void refresh() {
        if (asking) {
            askAgain = true;
            return;
        }
        asking = true;
        lastAsk = engine.clock().instant();
        try {
            background.run(engine::healthEvidence, ev -> {
                asking = false;
                show(ev);
                again();
            }, err -> {
                asking = false;
                unreachable(String.valueOf(err.getMessage()));
                again();
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            asking = false; // the window's session is ending (its executor closed): nothing more to judge
        }
    }

    private void again() {
        if (askAgain) {
            askAgain = false;
            refresh();
        }
    }

    private void show(HealthEvidence e) {
        HealthVerdict v = HealthRules.judge(e);
        active = alerts.evaluate(e.samples());
        apply(v);
    }

    private void unreachable(String why) {
        HealthVerdict v = HealthVerdict.unreachable(why);
        active = alerts.evaluate(Map.of("kiln_health{state=\"failing\"}", List.of(1.0)));
        apply(v);
    }

    private void apply(HealthVerdict v) {
        verdict.set(v);
        for (Card c : Card.values()) {
            cards.get(c).set(cardState(c, v, active));
        }
        showAlerts(engine.clock().instant());
        List<AlertFired> now = List.copyOf(fired);
        fired.clear();
        now.forEach(onFired);
    }

    /** A card's state: the worst reason that concerns it, raised by a rule that fires on it. */
    static CardState cardState(Card card, HealthVerdict v, List<Alert> active) {
        HealthState state = HealthState.HEALTHY;
        String reason = "";
        List<String> detail = new ArrayList<>(); // the tooltip: every reason and firing rule of the card
        for (HealthReason r : v.reasons()) {
            if (concerns(card, r.code())) {
                detail.add(r.state().wireName() + ": " + r.message());
                if (r.state().compareTo(state) > 0) {
                    state = r.state();
                    reason = r.message();
                }
            }
        }
        for (Alert a : active) {
            if (a.firing() && card == cardOf(a.rule())) {
                HealthState s = a.rule().severity().equals("critical") ? HealthState.FAILING : HealthState.DEGRADED;
                String text = "alert " + a.rule().name() + " firing: " + a.rule().summary();
                detail.add(text);
                if (s.compareTo(state) > 0) {
                    state = s;
                    reason = text;
                }
            }
        }
        if (card == Card.HEALTH && !v.reasons().isEmpty()) {
            reason = v.headline();
        }
        return new CardState(state, reason, detail.size() > 1 ? String.join("\n", detail) : reason);
    }

    private static boolean concerns(Card card, String code) {
        return switch (card) {
            case HEALTH -> true;
            case AGE -> AGE_CODES.contains(code);
            case FAILURES -> code.equals("contract_failures");
        };
    }

    /** The card a rule's metric colours. */
    static Card cardOf(AlertRule r) {
        String m = r.metricName();
        if (m.equals("kiln_projection_contract_failures")) {
            return Card.FAILURES;
        }
        if (m.startsWith("kiln_projection_age") || m.startsWith("kiln_watch_") || m.startsWith("kiln_state_file")) {
            return Card.AGE;
        }
        return Card.HEALTH;
    }

    private void showAlerts(Instant now) {
        List<AlertRow> out = new ArrayList<>();
        for (Alert a : active) {
            String ago = ago(Duration.between(a.since(), now));
            out.add(new AlertRow(a.rule().name(), a.rule().severity(), a.firing(),
                    (a.firing() ? "firing since " : "pending since ") + SINCE.format(a.since()) + " (" + ago + ")",
                    a.rule().summary(), a.rule().describe() + ", now " + number(a.value())));
        }
        out.addAll(fleetRows(fleet, now));
        firing.set((int) out.stream().filter(AlertRow::firing).count());
        if (!out.equals(rows)) {
            rows.setAll(out);
        }
    }

    /** The rules active on the Fleet page's daemons, by daemon name (empty: none, or no fleet). */
    private Map<String, List<Alert>> fleet = Map.of();

    /**
     * The alert rules active on the Fleet page's daemons (by daemon name, as its model judges them by the same rules):
     * listed after this console's own, a row per rule and state with the daemons it holds on and since when (the
     * earliest of them), and counted among the firing ones.
     */
    public void setFleetAlerts(Map<String, List<Alert>> byDaemon) {
        fleet = Map.copyOf(byDaemon);
        showAlerts(engine.clock().instant());
    }

    /** {@code KilnSeedStale on fleet-03} or {@code … on 12 daemons}, firing ones first, then by rule name. */
    static List<AlertRow> fleetRows(Map<String, List<Alert>> byDaemon, Instant now) {
        Map<String, List<Map.Entry<String, Alert>>> byRule = new java.util.TreeMap<>();
        byDaemon.forEach((daemon, list) -> list.forEach(a -> byRule.computeIfAbsent((a.firing() ? "0" : "1") + a.rule().name(),
                k -> new ArrayList<>()).add(Map.entry(daemon, a))));
        List<AlertRow> out = new ArrayList<>();
        byRule.values().forEach(on -> {
            on.sort(Map.Entry.comparingByKey());
            Alert first = on.stream().map(Map.Entry::getValue).min(java.util.Comparator.comparing(Alert::since)).orElseThrow();
            List<String> names = on.stream().map(Map.Entry::getKey).toList();
            String where = names.size() == 1 ? names.get(0) : names.size() + " daemons";
            String listed = names.size() == 1 ? "" : " (" + String.join(", ", names.stream().limit(5).toList())
                    + (names.size() > 5 ? " +" + (names.size() - 5) + " more" : "") + ")";
            out.add(new AlertRow(first.rule().name() + " on " + where, first.rule().severity(), first.firing(),
                    (first.firing() ? "firing since " : "pending since ") + SINCE.format(first.since()) + " ("
                            + ago(Duration.between(first.since(), now)) + ")",
                    first.rule().summary() + listed, first.rule().describe() + " (Fleet page)"));
        });
        return out;
    }

    private static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(java.util.Locale.ROOT, "%.2f", d);
    }

    private static String ago(Duration d) {
        long s = Math.max(0, d.getSeconds());
        return s < 60 ? s + " s ago" : s < 3600 ? s / 60 + " min " + s % 60 + " s ago" : s / 3600 + " h " + s % 3600 / 60 + " min ago";
    }

    /** The verdict; null before the first ask answered. */
    public ReadOnlyObjectProperty<HealthVerdict> verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<CardState> cardProperty(Card card) {
        return cards.get(card).getReadOnlyProperty();
    }

    /** Active rules, firing first. */
    public ObservableList<AlertRow> alerts() {
        return readOnlyRows;
    }

    /** How many rules fire now. */
    public ReadOnlyIntegerProperty firingProperty() {
        return firing.getReadOnlyProperty();
    }

    /** The last rule that stopped firing, and when; empty before the first. */
    public ReadOnlyStringProperty lastResolvedProperty() {
        return lastResolved.getReadOnlyProperty();
    }

    /** Where the rules come from, or why alerts.json was not used. */
    public ReadOnlyStringProperty rulesNoteProperty() {
        return rulesNote.getReadOnlyProperty();
    }
}

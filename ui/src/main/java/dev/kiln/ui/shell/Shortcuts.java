package dev.kiln.ui.shell;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import javafx.scene.Node;
import javafx.scene.Scene;
import javafx.scene.control.ButtonBase;
import javafx.scene.control.Control;
import javafx.scene.control.TextInputControl;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;

/**
 * The keyboard shortcut of each page's main action, in one table. A shortcut acts on a control of the shown page,
 * found by its id, so the pages need to know nothing about keys: a button is fired (only when enabled, as a click
 * would be), a text field gets the focus. A page's shortcuts do nothing while another page is shown. Each control
 * names its shortcut in its tooltip, and the sidebar's entry lists its page's shortcuts.
 */
public final class Shortcuts {
    /** One shortcut: on {@code page}, {@code keys} act on the control {@code #nodeId}, which does {@code what}. */
    public record Action(Page page, KeyCombination keys, String nodeId, String what) {
    }

    private static final List<Action> ACTIONS = List.of(
            new Action(Page.PROJECTION, ctrl(KeyCode.R), "projection-now", "project now"),
            new Action(Page.CONTRACTS, ctrl(KeyCode.F), "contracts-filter", "search"),
            new Action(Page.CONTRACTS, ctrl(KeyCode.H), "contracts-heal", "heal preview"),
            new Action(Page.CONTRACTS, ctrl(KeyCode.R), "contracts-refresh", "project now"),
            new Action(Page.CACHES, ctrl(KeyCode.G), "caches-fetch", "get archive"),
            new Action(Page.SEEDS, ctrl(KeyCode.W), "seeds-warm", "warm selected"),
            new Action(Page.STARTUP, ctrl(KeyCode.P), "startup-probe", "probe all"),
            new Action(Page.EVENTS, ctrl(KeyCode.F), "events-filter", "search"));

    private Shortcuts() {
    }

    private static KeyCombination ctrl(KeyCode key) {
        return new KeyCodeCombination(key, KeyCombination.SHORTCUT_DOWN);
    }

    /** Every page action shortcut, in sidebar order. */
    public static List<Action> all() {
        return ACTIONS;
    }

    /** The shortcuts of {@code page}. */
    public static List<Action> of(Page page) {
        return ACTIONS.stream().filter(a -> a.page() == page).toList();
    }

    /** {@code Ctrl+R project now · Ctrl+F search}, or empty. */
    static String describe(Page page) {
        return String.join(" · ", of(page).stream().map(a -> a.keys().getDisplayText() + " " + a.what()).toList());
    }

    /**
     * Puts the page shortcuts on {@code scene}: each acts on the page {@code shown} names, in the node
     * {@code pageNode} gives for it (null when that page was never built).
     */
    static void install(Scene scene, Supplier<Page> shown, Function<Page, Node> pageNode) {
        for (KeyCombination keys : ACTIONS.stream().map(Action::keys).distinct().toList()) {
            scene.getAccelerators().put(keys, () -> {
                Page page = shown.get();
                ACTIONS.stream().filter(a -> a.page() == page && a.keys().equals(keys)).findFirst()
                        .flatMap(a -> find(pageNode.apply(page), a))
                        .ifPresent(Shortcuts::act);
            });
        }
    }

    /** Names each shortcut in the tooltip of its control on {@code page}'s freshly built {@code node}. */
    static void annotate(Page page, Node node) {
        for (Action a : of(page)) {
            find(node, a).ifPresent(n -> {
                if (n instanceof Control c) {
                    String hint = a.keys().getDisplayText();
                    Tooltip t = c.getTooltip();
                    if (t == null) {
                        c.setTooltip(new Tooltip(capitalized(a.what()) + "  (" + hint + ")"));
                    } else if (!t.getText().contains(hint)) {
                        t.setText(t.getText() + "  (" + hint + ")");
                    }
                }
            });
        }
    }

    private static Optional<Node> find(Node page, Action a) {
        return page == null ? Optional.empty() : Optional.ofNullable(page.lookup("#" + a.nodeId()));
    }

    private static void act(Node n) {
        if (n.isDisabled() || !n.isVisible()) {
            return; // as a click would: nothing
        }
        if (n instanceof ButtonBase b) {
            b.fire();
        } else if (n instanceof TextInputControl t) {
            t.requestFocus();
            t.selectAll();
        } else {
            n.requestFocus();
        }
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }
}

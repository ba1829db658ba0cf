package dev.kiln.ui.shell;

import dev.kiln.core.workspace.WorkspaceLayout;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/** The window's state: which workspace, which page, and the status line. Changed only through its methods. */
public final class MainViewModel {
    private final WorkspaceLayout workspace;
    private final ReadOnlyObjectWrapper<Page> page = new ReadOnlyObjectWrapper<>(Page.CONTRACTS);
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper("");
    private final ReadOnlyObjectWrapper<Notices.Notice> lastNotice = new ReadOnlyObjectWrapper<>();
    private final ReadOnlyObjectWrapper<Theme> theme = new ReadOnlyObjectWrapper<>(Theme.DARK);

    private final javafx.collections.ObservableList<java.nio.file.Path> recent = javafx.collections.FXCollections.observableArrayList();
    private java.util.function.Consumer<java.nio.file.Path> opener = p -> { };
    private final javafx.collections.ObservableList<dev.kiln.core.fleet.DaemonEntry> recentDaemons = javafx.collections.FXCollections.observableArrayList();
    /** Without an application to attach through, a daemon is shown where daemons are: the Fleet page. */
    private java.util.function.Consumer<dev.kiln.core.fleet.DaemonEntry> daemonOpener = d -> navigate(Page.FLEET);
    /** The daemon whose pages this window shows, or null for a local workspace. */
    private dev.kiln.core.fleet.DaemonEntry attached;

    /** Where the pages' engine works, for the title and the status line: the directory, or a daemon's name and URL. */
    private final String location;
    /** The short name above the pages: the workspace directory's name, or the daemon's. */
    private final String label;

    public MainViewModel(WorkspaceLayout workspace) {
        this(workspace, workspace.name(), workspace.root().toString());
    }

    /**
     * A window over a workspace seen through a daemon: {@code label} above the pages, {@code location} in the title
     * and status line (a remote workspace's paths are on the daemon's host).
     */
    public MainViewModel(WorkspaceLayout workspace, String label, String location) {
        this.workspace = workspace;
        this.label = label;
        this.location = location;
    }

    /**
     * A window over {@code daemon}'s pages: its name above them, {@code location} (name and the engine's address) in
     * the title and status line.
     */
    public static MainViewModel attached(WorkspaceLayout workspace, dev.kiln.core.fleet.DaemonEntry daemon, String location) {
        MainViewModel m = new MainViewModel(workspace, daemon.name(), location);
        m.attached = daemon;
        return m;
    }

    /** The daemon whose pages this window shows; empty for a local workspace. */
    public java.util.Optional<dev.kiln.core.fleet.DaemonEntry> attachedDaemon() {
        return java.util.Optional.ofNullable(attached);
    }

    /** Recently attached daemons for the menu, newest first (the one shown too: the menu marks it). */
    public javafx.collections.ObservableList<dev.kiln.core.fleet.DaemonEntry> recentDaemons() {
        return recentDaemons;
    }

    /** Who attaches this window to a daemon: the application's one connect path (tests record the call). */
    public void setDaemonOpener(java.util.function.Consumer<dev.kiln.core.fleet.DaemonEntry> opener) {
        this.daemonOpener = java.util.Objects.requireNonNull(opener);
    }

    /**
     * Attaches this window to {@code daemon} (a recent one, or one just connected): through the daemon opener, which
     * connects off the FX thread and says in a notification when the daemon cannot be reached. The daemon shown now
     * is not connected again.
     */
    public void openDaemon(dev.kiln.core.fleet.DaemonEntry daemon) {
        if (attached != null && attached.url().equals(daemon.url())) {
            return;
        }
        daemonOpener.accept(daemon);
    }

    /** The short name above the pages. */
    public String label() {
        return label;
    }

    /** Where the pages' engine works: the directory, or the daemon's name and URL. */
    public String location() {
        return location;
    }

    /** Recent workspaces for the menu, newest first, without the one shown. */
    public javafx.collections.ObservableList<java.nio.file.Path> recent() {
        return recent;
    }

    /** Who opens another workspace in this window: handed on when the window shows another engine. */
    public java.util.function.Consumer<java.nio.file.Path> opener() {
        return opener;
    }

    /** Who opens another workspace in this window (the application; tests record the call). */
    public void setOpener(java.util.function.Consumer<java.nio.file.Path> opener) {
        this.opener = java.util.Objects.requireNonNull(opener);
    }

    /**
     * Opens {@code dir} in this window if it is a Kiln workspace; otherwise says why in a notification and keeps
     * the current one.
     */
    public void openWorkspace(java.nio.file.Path dir) {
        WorkspaceLayout w = WorkspaceLayout.of(dir);
        if (!w.isWorkspace()) {
            notify(new Notices.Notice(Notices.Kind.FAILED, "Not a Kiln workspace", w.root()
                    + " has neither kiln.json nor tasks/; pick a workspace directory, or use Create demo workspace…"));
            return;
        }
        if (w.equals(workspace)) {
            return;
        }
        opener.accept(w.root());
    }

    public WorkspaceLayout workspace() {
        return workspace;
    }

    /** {@code Kiln — <workspace>}, or {@code Kiln — <daemon> (<url>)} */
    public String windowTitle() {
        return "Kiln — " + location;
    }

    public void navigate(Page to) {
        page.set(to);
    }

    public ReadOnlyObjectProperty<Page> pageProperty() {
        return page.getReadOnlyProperty();
    }

    public ReadOnlyObjectProperty<Theme> themeProperty() {
        return theme.getReadOnlyProperty();
    }

    public void setTheme(Theme t) {
        theme.set(java.util.Objects.requireNonNull(t));
    }

    /** Light to dark and back (the sidebar's switch, Ctrl+T). */
    public void toggleTheme() {
        theme.set(theme.get().other());
    }

    /** The page that {@code Ctrl+<digit>} shows: 1 is the first sidebar entry; empty past the last. */
    public static java.util.Optional<Page> pageForDigit(int digit) {
        Page[] all = Page.values();
        return digit >= 1 && digit <= all.length ? java.util.Optional.of(all[digit - 1]) : java.util.Optional.empty();
    }

    /** Records {@code n} as the newest notification (the window pops it up) and puts it in the status line. */
    public void notify(Notices.Notice n) {
        lastNotice.set(n);
        status.set(n.title() + ": " + n.text());
    }

    /** The newest notification, or {@code null}. */
    public ReadOnlyObjectProperty<Notices.Notice> lastNoticeProperty() {
        return lastNotice.getReadOnlyProperty();
    }

    public void setStatus(String text) {
        status.set(text);
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }
}

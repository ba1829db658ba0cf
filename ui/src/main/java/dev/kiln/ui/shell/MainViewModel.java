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

    public MainViewModel(WorkspaceLayout workspace) {
        this.workspace = workspace;
    }

    public WorkspaceLayout workspace() {
        return workspace;
    }

    /** {@code Kiln — <workspace>} */
    public String windowTitle() {
        return "Kiln — " + workspace.root();
    }

    public void navigate(Page to) {
        page.set(to);
    }

    public ReadOnlyObjectProperty<Page> pageProperty() {
        return page.getReadOnlyProperty();
    }

    public void setStatus(String text) {
        status.set(text);
    }

    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }
}

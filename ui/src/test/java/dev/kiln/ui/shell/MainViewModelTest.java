package dev.kiln.ui.shell;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kiln.core.demo.DemoWorkspace;
import dev.kiln.core.workspace.WorkspaceLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shell's workspace menu actions, without a window. */
class MainViewModelTest {
    @TempDir
    Path tmp;

    @Test
    void openWorkspace_aWorkspace_goesToTheOpener() {
        Path other = tmp.resolve("other");
        new DemoWorkspace().write(other, 3, 1, false);
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(other);

        assertThat(opened).containsExactly(other.toAbsolutePath().normalize());
        assertThat(vm.lastNoticeProperty().get()).isNull();
    }

    @Test
    void openWorkspace_notAWorkspace_notifiesWhyAndOpensNothing() throws Exception {
        Path plain = Files.createDirectories(tmp.resolve("holiday-photos"));
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(tmp.resolve("current")));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(plain);

        assertThat(opened).isEmpty();
        assertThat(vm.lastNoticeProperty().get().kind()).isEqualTo(Notices.Kind.FAILED);
        assertThat(vm.lastNoticeProperty().get().text()).startsWith(plain.toString()).contains("neither kiln.json nor tasks/");
        assertThat(vm.statusProperty().get()).startsWith("Not a Kiln workspace");
    }

    @Test
    void openWorkspace_theOneShown_isANoOp() {
        Path ws = tmp.resolve("ws");
        new DemoWorkspace().write(ws, 3, 1, false);
        MainViewModel vm = new MainViewModel(WorkspaceLayout.of(ws));
        List<Path> opened = new ArrayList<>();
        vm.setOpener(opened::add);

        vm.openWorkspace(ws);

        assertThat(opened).isEmpty();
    }
}

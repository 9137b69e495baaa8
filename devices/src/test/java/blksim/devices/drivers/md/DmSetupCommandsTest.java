package blksim.devices.drivers.md;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import blksim.queues.books.Books;
import org.junit.jupiter.api.Test;

/**
 * A dmsetup process's commands (docs/kernel.md section 14): {@code suspend --noflush}, a sleep,
 * then {@code resume}, each command's time waking the process, which runs them in a script's order.
 */
class DmSetupCommandsTest {
  private final DmSetupCommands cmds = new DmSetupCommands();

  @Test
  void aSuspendsTimeWakesTheProcessWhichSuspendsAndSleepsUntilItsResume() {
    assertTrue(cmds.command(50), "asleep: the command's time wakes it");
    assertTrue(cmds.woken());
    cmds.switchedIn();
    assertEquals(new DmSetupCommands.Suspend(50), cmds.next(200));
    assertEquals(200, cmds.freeAtPs(), "nanosleep: the CPU is free of it");
    assertFalse(cmds.inFlight());
    assertTrue(cmds.command(-1), "the sleep's end wakes it");
    cmds.switchedIn();
    assertEquals(new DmSetupCommands.Resume(), cmds.next(260));
    assertTrue(cmds.inFlight(), "md->wq's work is out: the CPU is busy with it");
    cmds.resumed();
    assertEquals(new DmSetupCommands.Sleep(), cmds.next(300));
    assertEquals(300, cmds.freeAtPs());
    Books books = new Books();
    cmds.audit(books, "dmsetup");
    assertTrue(books.balanced(), books.violations().toString());
  }

  @Test
  void aSuspendThatComesDuringTheSleepWaitsBehindTheResume() {
    cmds.command(100);
    cmds.switchedIn();
    cmds.next(0);
    assertFalse(cmds.command(20), "asleep between a suspend and its resume: it stays asleep");
    assertTrue(cmds.command(-1));
    cmds.switchedIn();
    assertEquals(new DmSetupCommands.Resume(), cmds.next(100), "the resume first");
    cmds.resumed();
    assertEquals(new DmSetupCommands.Suspend(20), cmds.next(150), "then the suspend that waited");
  }

  @Test
  void aCommandDuringTheResumesWorkWaitsForIt() {
    cmds.command(10);
    cmds.switchedIn();
    cmds.next(0);
    cmds.command(-1);
    cmds.switchedIn();
    cmds.next(10);
    assertFalse(cmds.command(30), "the resume's work runs: no second wake-up");
    assertFalse(cmds.woken());
    cmds.resumed();
    assertEquals(new DmSetupCommands.Suspend(30), cmds.next(40), "run when the resume is done");
  }

  @Test
  void aSuspendWithoutItsResumeIsCaughtByTheBooks() {
    cmds.command(10);
    cmds.switchedIn();
    cmds.next(0);
    Books books = new Books();
    cmds.audit(books, "dmsetup");
    assertFalse(books.balanced());
    assertEquals(2, books.violations().size(), books.violations().toString());
  }
}

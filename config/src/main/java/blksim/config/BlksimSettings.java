package blksim.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;

/**
 * Every setting of a run, parsed once from HOCON into immutable records.
 *
 * <p>Defaults live in {@code reference.conf} of this module; {@link Scenario} layers a scenario
 * file, {@code --null-blk} parameters, {@code --dm-table} tables and {@code --set} overrides on top
 * of them.
 */
public record BlksimSettings(
    RunSettings run,
    IoUringSettings ioUring,
    NullBlkSettings nullBlk,
    DmSettings dm,
    BioSetSettings bioset,
    CpuSettings cpu,
    InterferenceSettings interference,
    CpuProfile profile,
    KernelSettings kernel,
    EngineSettings engine,
    BooksSettings books) {

  /** Parses a resolved configuration that has {@code reference.conf} as its fallback. */
  public static BlksimSettings from(Config resolved) {
    SettingsReader r = new SettingsReader(resolved);
    return new BlksimSettings(
        RunSettings.from(r),
        IoUringSettings.from(r),
        NullBlkSettings.from(r),
        DmSettings.from(r),
        BioSetSettings.from(r),
        CpuSettings.from(r),
        InterferenceSettings.from(r),
        CpuProfile.from(r, ConfigFactory.defaultReference()),
        KernelSettings.from(r),
        EngineSettings.from(r),
        BooksSettings.from(r));
  }

  /** The defaults of {@code reference.conf} alone. */
  public static BlksimSettings defaults() {
    return new Scenario().settings();
  }
}

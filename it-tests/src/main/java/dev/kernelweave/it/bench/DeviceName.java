package dev.kernelweave.it.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The GPU's name, as the results file is named after it. */
public final class DeviceName {

  /** The name used where no GPU name can be found. */
  public static final String UNKNOWN = "unknown";

  private DeviceName() {}

  /** The first GPU's name from {@code nvidia-smi}, or {@link #UNKNOWN}. */
  public static String detect() {
    try {
      Process smi =
          new ProcessBuilder("nvidia-smi", "--query-gpu=name", "--format=csv,noheader")
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      String text;
      try (InputStream in = smi.getInputStream()) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      if (!smi.waitFor(30, TimeUnit.SECONDS) || smi.exitValue() != 0) {
        smi.destroyForcibly();
        return UNKNOWN;
      }
      String first = text.lines().map(String::strip).filter(l -> !l.isEmpty()).findFirst().orElse("");
      return first.isEmpty() ? UNKNOWN : first;
    } catch (IOException e) {
      return UNKNOWN;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return UNKNOWN;
    }
  }

  /**
   * A file name made from a device name: runs of anything but letters, digits, dot, underscore and
   * dash become one dash ({@code NVIDIA H100 80GB HBM3} becomes {@code NVIDIA-H100-80GB-HBM3}).
   */
  public static String toFileName(String device) {
    String name = device.strip().replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^[-.]+|-+$", "");
    return name.isEmpty() ? UNKNOWN : name;
  }
}

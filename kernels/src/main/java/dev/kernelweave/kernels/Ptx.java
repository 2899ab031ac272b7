package dev.kernelweave.kernels;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The PTX modules built from {@code src/main/cuda}, as class path resources, and their entries. */
public final class Ptx {

  /** What a kernel parameter holds, as far as a launch from Java is concerned. */
  public enum Param {
    /** A device pointer ({@code .u64}): passed as a {@code CUdeviceptr}. */
    POINTER,
    /** A 32-bit integer: passed as an {@code Integer}. */
    INT,
    /** A 32-bit float: passed as a {@code Float}. */
    FLOAT
  }

  private static final Pattern ENTRY =
      Pattern.compile("\\.entry\\s+([A-Za-z_$][\\w$]*)\\s*\\(([^)]*)\\)");
  private static final Pattern PARAM = Pattern.compile("\\.param\\s+\\.(\\w+)");

  private Ptx() {}

  /** The text of {@code ptx/NAME.ptx} from the class path. */
  public static String text(String module) {
    String resource = "ptx/" + module + ".ptx";
    try (InputStream in = Ptx.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            resource + " is not on the class path: build the kernels module (it runs nvcc)");
      }
      return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  /** The PTX text as {@code cuModuleLoadData} wants it: bytes ending in NUL. */
  public static byte[] image(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    byte[] image = new byte[bytes.length + 1];
    System.arraycopy(bytes, 0, image, 0, bytes.length);
    return image;
  }

  /** The entry points of a PTX text and their parameters, in declaration order. */
  public static Map<String, List<Param>> entries(String text) {
    Map<String, List<Param>> entries = new LinkedHashMap<>();
    Matcher entry = ENTRY.matcher(text);
    while (entry.find()) {
      List<Param> params = new ArrayList<>();
      Matcher param = PARAM.matcher(entry.group(2));
      while (param.find()) {
        params.add(param(entry.group(1), param.group(1)));
      }
      entries.put(entry.group(1), List.copyOf(params));
    }
    return entries;
  }

  private static Param param(String entry, String type) {
    switch (type) {
      case "u64":
      case "b64":
      case "s64":
        return Param.POINTER;
      case "u32":
      case "b32":
      case "s32":
        return Param.INT;
      case "f32":
        return Param.FLOAT;
      default:
        throw new IllegalStateException("kernel " + entry + " has a ." + type + " parameter");
    }
  }
}

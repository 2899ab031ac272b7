package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The window times stay bounded: the latest samples per shape, and shapes past the bound only counted. */
class WindowTimesTest {

  private final WindowTimes times = new WindowTimes();
  private final CallRecord r = new CallRecord();

  private void sample(long shape, String way, long deviceNanos) {
    r.reset();
    r.kind = CallKind.WINDOW_TIME;
    r.context = 0x10;
    r.appStream = shape;
    r.name = way;
    r.durationNanos = deviceNanos;
    r.bytes = 1_000;
    times.add(r);
  }

  private JsonObject json() {
    StringBuilder b = new StringBuilder("{\"journal\": \"j\"");
    times.appendJson(b);
    return JsonParser.parseString(b.append('}').toString()).getAsJsonObject().getAsJsonObject("window_times");
  }

  @Test
  void aShapesMedianIsOfItsLatestSamplesAndItsCountOfAll() {
    for (int i = 0; i < 1000; i++) {
      sample(0xabc, CallKind.WINDOW_AS_GRAPH, i < 1000 - WindowTimes.KEPT ? 1_000 : 5_000);
    }
    JsonObject shape = json().getAsJsonArray("shapes").get(0).getAsJsonObject();
    assertEquals(1000, shape.get("graph_samples").getAsInt());
    assertEquals(5.0, shape.get("graph_device_us").getAsDouble(), 1e-9, "the latest samples: " + shape);
    assertEquals(0, shape.get("in_order_samples").getAsInt());
  }

  @Test
  void shapesPastTheBoundAreCountedNotKeptApart() {
    int shapes = TopTable.TRACKED + 10;
    for (int s = 0; s < shapes; s++) {
      sample(s, CallKind.WINDOW_IN_ORDER, 2_000);
    }
    JsonObject json = json();
    assertEquals(shapes, json.get("samples").getAsInt());
    assertEquals(10, json.get("samples_of_untracked_shapes").getAsInt());
    assertEquals(TopTable.TRACKED, json.getAsJsonArray("shapes").size());
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    times.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("(and 10 samples of shapes past the first " + TopTable.TRACKED), printed);
    assertTrue(printed.contains("(" + (TopTable.TRACKED - WindowTimes.SHOWN) + " more shapes)"), printed);
  }
}

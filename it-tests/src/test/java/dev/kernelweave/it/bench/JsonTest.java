package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void readsEveryKindOfValue() {
    Object value = Json.parse(" {\"s\": \"a\\\"b\\\\c\\n\\u00e9\", \"n\": -1.5e2, \"t\": true, \"f\": false, \"z\": null,"
        + " \"a\": [1, [], {}]} ");
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("s", "a\"b\\c\né");
    expected.put("n", -150.0);
    expected.put("t", true);
    expected.put("f", false);
    expected.put("z", null);
    expected.put("a", List.of(1.0, List.of(), Map.of()));
    assertEquals(expected, value);
  }

  @Test
  void writtenValuesReadBackEqual() {
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("name", "tab\there \"quoted\" \u0001");
    value.put("times", List.of(1.25, 3.0));
    value.put("count", 3);
    value.put("nested", List.of(Map.of("k", false)));
    value.put("none", null);
    value.put("empty", List.of());
    Object back = Json.parse(Json.write(value));
    Map<String, Object> expected = new LinkedHashMap<>(value);
    expected.put("count", 3.0);
    assertEquals(expected, back);
  }

  @Test
  void numbersThatAreNotFiniteAreWrittenAsNull() {
    assertEquals(Arrays.asList(null, null, 1.0), Json.parse(Json.write(List.of(Double.NaN, Double.POSITIVE_INFINITY, 1.0))));
  }

  @Test
  void listsOfNumbersStayOnOneLine() {
    assertTrue(Json.write(Map.of("ms", List.of(1.0, 2.0))).contains("\"ms\": [1.0, 2.0]"));
  }

  @Test
  void rejectsBrokenText() {
    for (String bad : List.of("", "{", "[1,]", "{\"a\" 1}", "\"open", "tru", "1 2", "{\"a\":1}}", "-")) {
      assertThrows(IllegalArgumentException.class, () -> Json.parse(bad), bad);
    }
  }
}

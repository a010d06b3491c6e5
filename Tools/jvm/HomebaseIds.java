// The JVM oracle for the home base id (schema §4): reads one name per line as hex of its UTF-8
// bytes, prints "<hex of UTF-8 of name.trim().lowercase()> <sha256 hex>" per line, computed the
// way Kotlin on the JVM does it:
//   Kotlin String.trim()  = drop leading/trailing chars where Char.isWhitespace() is true,
//                           Char.isWhitespace() = Character.isWhitespace(c) || Character.isSpaceChar(c)
//   Kotlin lowercase()    = String.toLowerCase(Locale.ROOT)
// Used by Tests/VultureSyncSchemaTests/IdsJVMOracleTests.swift (javac/java from PATH).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

public class HomebaseIds {
    static boolean isKotlinWhitespace(char c) {
        return Character.isWhitespace(c) || Character.isSpaceChar(c);
    }

    static String kotlinTrim(String s) {
        int start = 0, end = s.length() - 1;
        boolean startFound = false;
        while (start <= end) {
            int index = !startFound ? start : end;
            boolean match = isKotlinWhitespace(s.charAt(index));
            if (!startFound) {
                if (!match) startFound = true; else start += 1;
            } else {
                if (!match) break; else end -= 1;
            }
        }
        return s.substring(start, end + 1);
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) sb.append(String.format("%02x", x & 0xff));
        return sb.toString();
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            String name = new String(unhex(line.trim()), StandardCharsets.UTF_8);
            byte[] key = kotlinTrim(name).toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8);
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(key);
            out.append(hex(key)).append(' ').append(hex(digest)).append('\n');
        }
        System.out.print(out);
    }
}

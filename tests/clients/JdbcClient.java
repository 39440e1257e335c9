// JDBC (pgjdbc) against tidepool serve, run by jdbc_test.py: a PreparedStatement
// batch of inserts, a PreparedStatement run past prepareThreshold (the driver then
// names its statement), getMetaData on a result set, and fetchSize inside a
// transaction (Execute with a row limit). Prints one line per result for the test
// to compare with tidepool sql.
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;

public class JdbcClient {
  public static void main(String[] args) throws Exception {
    String url = "jdbc:postgresql://127.0.0.1:" + args[0] + "/tidepool?connectTimeout=10";
    try (Connection c = DriverManager.getConnection(url, "tidepool", "")) {
      try (Statement s = c.createStatement()) {
        s.execute("CREATE TABLE j (a int PRIMARY KEY, b varchar(20), n numeric(8,2))");
      }
      try (PreparedStatement p = c.prepareStatement("INSERT INTO j VALUES (?, ?, ?)")) {
        for (int i = 1; i <= 50; i++) {
          p.setInt(1, i);
          p.setString(2, "s" + i);
          p.setBigDecimal(3, new BigDecimal(i).divide(new BigDecimal(4)));
          p.addBatch();
        }
        System.out.println("batch " + p.executeBatch().length);
      }
      try (PreparedStatement p =
          c.prepareStatement("SELECT a, b, n FROM j WHERE a >= ? AND b LIKE ? ORDER BY a")) {
        for (int k = 0; k < 7; k++) {
          p.setInt(1, 10 + k);
          p.setString(2, "s1%");
          try (ResultSet rs = p.executeQuery()) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder line = new StringBuilder("query");
            for (int i = 1; i <= md.getColumnCount(); i++)
              line.append(' ').append(md.getColumnName(i)).append(':').append(md.getColumnTypeName(i));
            while (rs.next()) line.append(' ').append(rs.getInt(1)).append('|').append(rs.getString(2))
                .append('|').append(rs.getBigDecimal(3));
            System.out.println(line);
          }
        }
      }
      c.setAutoCommit(false);
      try (PreparedStatement p = c.prepareStatement("SELECT a FROM j ORDER BY a")) {
        p.setFetchSize(7);
        long sum = 0;
        try (ResultSet rs = p.executeQuery()) {
          while (rs.next()) sum += rs.getInt(1);
        }
        System.out.println("fetch " + sum);
      }
      c.commit();
    }
  }
}

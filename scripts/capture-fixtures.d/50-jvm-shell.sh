# shellcheck shell=bash
# Sourced by scripts/capture-fixtures.sh (uses $SRC, $OUT and run()).
# JVM: javac errors, a plain `java` run whose stack has two "Caused by:" links, Maven Surefire (offline, from the
# local repository; skipped when it cannot resolve). Shell: shellcheck (tty and gcc formats).
# Gradle: Debian's gradle 4.4 (apt-get install gradle) with JUnit 4 from the local Maven repository, offline.
# Not captured here: dotnet test (Debian has no dotnet SDK package).

if command -v javac >/dev/null; then
  J="$SRC/jbilling"
  mkdir -p "$J/src/main/java/com/acme/billing" "$J/src/test/java/com/acme/billing"
  cat >"$J/src/main/java/com/acme/billing/Invoice.java" <<'JAVA'
package com.acme.billing;

import java.math.BigDecimal;
import java.util.List;

public record Invoice(String id, String customer, List<BigDecimal> lines) {
    public BigDecimal total() {
        return lines.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
JAVA
  cat >"$J/src/main/java/com/acme/billing/InvoiceParser.java" <<'JAVA'
package com.acme.billing;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;

public final class InvoiceParser {
    public static final class ParseException extends Exception {
        public ParseException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Parses "id;customer;amount,amount,...". */
    public Invoice parse(String line) throws ParseException {
        String[] parts = line.split(";");
        try {
            List<BigDecimal> amounts = new ArrayList<>();
            for (String a : parts[2].split(",")) amounts.add(new BigDecimal(a.trim()));
            return new Invoice(parts[0], parts[1], amounts);
        } catch (NumberFormatException e) {
            throw new ParseException("bad amount in invoice " + parts[0], e);
        }
    }
}
JAVA
  cat >"$J/src/main/java/com/acme/billing/BillingRun.java" <<'JAVA'
package com.acme.billing;

import java.util.List;

public final class BillingRun {
    private final InvoiceParser parser = new InvoiceParser();

    public java.math.BigDecimal totalOf(List<String> rows) {
        java.math.BigDecimal sum = java.math.BigDecimal.ZERO;
        for (String row : rows) {
            try {
                sum = sum.add(parser.parse(row).total());
            } catch (InvoiceParser.ParseException e) {
                throw new IllegalStateException("billing run aborted at row: " + row, e);
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        List<String> rows = List.of("INV-1;acme;10.00,2.50", "INV-2;globex;7,50");
        System.out.println("total " + new BillingRun().totalOf(rows.stream().map(r -> r.replace("7,50", "7.5O")).toList()));
    }
}
JAVA
  # javac: a second class that uses the record wrongly (two errors in one file)
  mkdir -p "$J/broken/com/acme/billing"
  cat >"$J/broken/com/acme/billing/Statement.java" <<'JAVA'
package com.acme.billing;

import java.util.List;

public final class Statement {
    public static String render(List<Invoice> invoices) {
        StringBuilder out = new StringBuilder();
        for (Invoice inv : invoices) {
            out.append(inv.getCustomer()).append(": ").append(inv.total()).append('\n');
        }
        int count = invoices.size() + "";
        return out.toString();
    }
}
JAVA
  run javac-cannot-find-symbol "$J" javac -d build/broken src/main/java/com/acme/billing/Invoice.java broken/com/acme/billing/Statement.java
  (cd "$J" && javac -d build/classes src/main/java/com/acme/billing/*.java) >/dev/null 2>&1
  run java-caused-by-chain "$J" java -cp build/classes com.acme.billing.BillingRun

  if command -v mvn >/dev/null; then
    cat >"$J/pom.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.acme</groupId>
  <artifactId>billing</artifactId>
  <version>1.0-SNAPSHOT</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.10.2</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
      <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
    </plugins>
  </build>
</project>
XML
    cat >"$J/src/test/java/com/acme/billing/BillingRunTest.java" <<'JAVA'
package com.acme.billing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class BillingRunTest {
    @Test
    void sumsAllInvoiceLines() {
        BigDecimal total = new BillingRun().totalOf(List.of("INV-1;acme;10.00,2.50", "INV-2;globex;7.50"));
        // BigDecimal.equals compares the scale too: 20 is not 20.00
        assertEquals(new BigDecimal("20"), total);
    }

    @Test
    void totalsInvoicesFromTheLegacyExport() {
        BigDecimal total = new BillingRun().totalOf(List.of("INV-7;initech;4.20,1.3O"));
        assertEquals(new BigDecimal("5.50"), total);
    }
}
JAVA
    run maven-surefire-assertion "$J" mvn -o -B -ntp test -Dtest='BillingRunTest#sumsAllInvoiceLines'
    run maven-surefire-error-caused-by "$J" mvn -o -B -ntp test -Dtest='BillingRunTest#totalsInvoicesFromTheLegacyExport'
  fi
fi

if command -v gradle >/dev/null && [ -d "$HOME/.m2/repository/junit/junit/4.13.2" ]; then
  # Gradle 4.4 compiles with -source 12: the record in Invoice.java is a real compile error there.
  GB="$SRC/gbilling-records"
  mkdir -p "$GB/src/main/java/com/acme/billing"
  cp "$SRC/jbilling/src/main/java/com/acme/billing/"*.java "$GB/src/main/java/com/acme/billing/"
  printf "apply plugin: 'java'\nrepositories { mavenLocal() }\n" >"$GB/build.gradle"
  run gradle-compile-error "$GB" gradle --offline --no-daemon -q build
  for fmt in default full; do
    GB="$SRC/gbilling-$fmt"
    mkdir -p "$GB/src/main/java/com/acme/billing" "$GB/src/test/java/com/acme/billing"
    cp "$SRC/jbilling/src/main/java/com/acme/billing/"*.java "$GB/src/main/java/com/acme/billing/"
    cat >"$GB/src/main/java/com/acme/billing/Invoice.java" <<'JAVA'
package com.acme.billing;

import java.math.BigDecimal;
import java.util.List;

public final class Invoice {
    private final String id;
    private final List<BigDecimal> lines;

    public Invoice(String id, String customer, List<BigDecimal> lines) {
        this.id = id;
        this.lines = lines;
    }

    public String id() {
        return id;
    }

    public BigDecimal total() {
        return lines.stream().reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
JAVA
    {
      printf "apply plugin: 'java'\nrepositories { mavenLocal() }\ndependencies { testCompile 'junit:junit:4.13.2' }\n"
      [ "$fmt" = full ] && printf "test {\n  testLogging {\n    events 'failed'\n    exceptionFormat 'full'\n  }\n}\n"
    } >"$GB/build.gradle"
    cat >"$GB/src/test/java/com/acme/billing/BillingRunTest.java" <<'JAVA'
package com.acme.billing;

import static org.junit.Assert.assertEquals;

import java.math.BigDecimal;
import java.util.List;
import org.junit.Test;

public class BillingRunTest {
    @Test
    public void totalsInvoicesFromTheLegacyExport() {
        BigDecimal total = new BillingRun().totalOf(List.of("INV-7;initech;4.20,1.3O"));
        assertEquals(new BigDecimal("5.50"), total);
    }
}
JAVA
    run "gradle-test-$fmt-format" "$GB" gradle --offline --no-daemon test
  done
fi

if command -v shellcheck >/dev/null; then
  mkdir -p "$SRC/deploytools/bin"
  cat >"$SRC/deploytools/bin/deploy.sh" <<'SH'
#!/bin/bash
# Copies the release tarball to every host listed in hosts.txt and restarts the service.
set -e

RELEASE_DIR=$1
HOSTS_FILE=hosts.txt

restart() {
  ssh "$1" "systemctl restart app"
}

cd $RELEASE_DIR
for host in $(cat $HOSTS_FILE); do
  scp release.tar.gz $host:/srv/app/
  restart $host
done

if [ $DRY_RUN == 1 ]; then
  echo "dry run only"
fi

files=$(ls *.tar.gz)
echo "deployed ${files[@]} to $(wc -l < $HOSTS_FILE) hosts"
SH
  cat >"$SRC/deploytools/bin/rotate.sh" <<'SH'
#!/bin/sh
# Keeps the newest 5 logs.
LOG_DIR=/var/log/app
count=0
for f in `ls -t $LOG_DIR/*.log`; do
  count=$((count+1))
  if [[ $count -gt 5 ]]; then
    rm $f
  fi
done
SH
  run shellcheck-tty "$SRC/deploytools" shellcheck bin/deploy.sh
  run shellcheck-gcc-format "$SRC/deploytools" shellcheck -f gcc bin/deploy.sh bin/rotate.sh
fi

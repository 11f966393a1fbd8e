// The server's JVM heap (bytes: used, committed, max), read through JMX (benchmarks report it).
CALL dbms.queryJmx('java.lang:type=Memory') YIELD attributes
RETURN attributes.HeapMemoryUsage.value.properties AS heap

"""Demo MCP server and client driver used to exercise (and record) the protocol end to end.

* `inspector.demo.server.build_server()` - the demo `MCPServer`;
* ``python -m inspector.demo`` - run it (stdio, streamable-http or sse);
* `inspector.demo.driver.drive_demo()` - drive a server with the SDK client and
  collect a `inspector.demo.report.DemoReport`.
"""

// restmap-sample-server: placeholder until the sample server lands (issue 7).
print("restmap-sample-server: not built yet")
